package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan"
)

// Lookup calls fn with every row whose key is key, in file order. Each row
// is passed verbatim, from its first byte through its terminator (a '\n' is
// added to an unterminated last row). The slice is valid only during the
// call. An error from fn stops the lookup and is returned.
func (ix *Index) Lookup(key []byte, fn func(row []byte) error) error {
	return ix.Get([][]byte{key}, fn)
}

// Get calls fn, as [Index.Lookup] does, with every row whose key is one of
// keys: in file order, each row once, however often its key is repeated.
func (ix *Index) Get(keys [][]byte, fn func(row []byte) error) error {
	return ix.guard(func() error {
		var s scan.Scanner
		if err := s.Init(ix.csv.data, ix.h.delim, int(ix.h.keyCol)); err != nil {
			return err
		}
		keys = distinct(keys)
		if len(keys) == 1 { // a run is in file order already
			return ix.rows(&s, keys[0], func(r span) error { return ix.emit(r, fn) })
		}
		var found []span
		for _, key := range keys {
			err := ix.rows(&s, key, func(r span) error {
				found = append(found, r)
				return nil
			})
			if err != nil {
				return err
			}
		}
		slices.SortFunc(found, func(a, b span) int { return a.start - b.start })
		for _, r := range found {
			if err := ix.emit(r, fn); err != nil {
				return err
			}
		}
		return nil
	})
}

// Count returns how many index records have key's hash: the number of rows
// with that key unless two different keys share a 64-bit hash. It reads no
// rows.
func (ix *Index) Count(key []byte) (n int64, err error) {
	err = ix.guard(func() error {
		first, end, err := ix.run(ix.hash(key))
		n = int64(end - first)
		return err
	})
	return n, err
}

// Header returns the CSV's header record verbatim, ending with '\n', or
// nil when the CSV has none.
func (ix *Index) Header() ([]byte, error) {
	if ix.h.headerEnd == 0 {
		return nil, nil
	}
	var row []byte
	err := ix.guard(func() error {
		row = bytes.Clone(ix.csv.data[ix.h.headerStart:ix.h.headerEnd])
		return nil
	})
	if len(row) > 0 && row[len(row)-1] != '\n' {
		row = append(row, '\n')
	}
	return row, err
}

// span is a row of the CSV found by a lookup.
type span struct {
	start, end int
	terminated bool
}

// rows calls fn with each row whose key is key, in file order: the
// candidates of the key's hash, read and compared.
func (ix *Index) rows(s *scan.Scanner, key []byte, fn func(span) error) error {
	first, end, err := ix.run(ix.hash(key))
	if err != nil {
		return err
	}
	for i := first; i < end; i++ {
		if (i-first)%prefetchRows == 0 {
			ix.touchRows(i, min(end, i+prefetchRows))
		}
		off := ix.offsetAt(i)
		if off >= ix.h.scanned {
			return ix.corrupt("record %d points at offset %d, past the %d bytes indexed", i, off, ix.h.scanned)
		}
		if !s.At(int(off)) || s.Start() != int(off) {
			continue
		}
		if k, ok := s.Key(); ok && bytes.Equal(k, key) {
			if err := fn(span{s.Start(), s.End(), s.Terminated()}); err != nil {
				return err
			}
		}
	}
	return nil
}

const prefetchRows = 16 // candidate rows whose first bytes are loaded together

// touchRows loads the first byte of the rows of records [from, to). The
// loads do not depend on each other, so the processor overlaps their cache
// and TLB misses, which would otherwise queue one behind each row's parse.
func (ix *Index) touchRows(from, to uint64) {
	var sum byte
	for i := from; i < to; i++ {
		if off := ix.offsetAt(i); off < uint64(len(ix.csv.data)) {
			sum += ix.csv.data[off]
		}
	}
	runtime.KeepAlive(sum)
}

// emit passes a found row to fn, adding the newline an unterminated last row
// lacks.
func (ix *Index) emit(r span, fn func([]byte) error) error {
	row := ix.csv.data[r.start:r.end]
	if !r.terminated {
		row = append(bytes.Clone(row), '\n')
	}
	return fn(row)
}

// run returns the records [first, end) whose hash is h. It checks the CRC of
// every page it relies on: the pages of the record before the run, of the
// run, and of the record after it. The file was sorted when written, so a
// run bracketed by smaller and larger hashes on checked pages is the
// complete run, wherever the search's unchecked steps went.
func (ix *Index) run(h uint64) (first, end uint64, err error) {
	n := ix.h.records
	first = ix.lowerBound(h)
	checked := ^uint64(0) // the last page checked; pages come in increasing order
	check := func(i uint64) error {
		if p := i / recordsPerPage; p != checked {
			checked = p
			return ix.checkPage(p)
		}
		return nil
	}
	if first > 0 {
		if err := check(first - 1); err != nil {
			return 0, 0, err
		}
	}
	for end = first; end < n; end++ {
		if err := check(end); err != nil {
			return 0, 0, err
		}
		if ix.hashAt(end) != h {
			break
		}
	}
	return first, end, nil
}

// lowerBound returns the index of the first record whose hash is h or more.
//
// Hashes are uniform, so it interpolates: the record holding h should sit at
// the fraction of the range that h is of the range's hashes. Each probe reads
// the first and last records of the page the estimate falls on, so one page
// (one cache and TLB miss, or one disk read when cold) either holds the
// answer or bounds the range from one side. On 10M records a lookup touches
// three to five pages where a binary search touches twenty; equal hashes of
// heavy keys, which skew the estimate, cost a probe or two more. After
// maxProbes the search finishes by bisection, so the worst case stays
// logarithmic.
func (ix *Index) lowerBound(h uint64) uint64 {
	// The answer lies in [lo, hi]; records [lo, hi) have hashes in
	// [hlo, hhi]. span is hhi-hlo+1, with 0 standing for 2^64.
	lo, hi := uint64(0), ix.h.records
	hlo, hhi := uint64(0), uint64(math.MaxUint64)
	for probes := 0; hi-lo > recordsPerPage && probes < maxProbes; probes++ {
		offHi, offLo := bits.Mul64(h-hlo, hi-lo)
		pos := lo + offHi
		if span := hhi - hlo + 1; span != 0 {
			pos, _ = bits.Div64(offHi, offLo, span)
			pos += lo
		}
		first := max(lo, pos-pos%recordsPerPage)
		last := min(hi, pos-pos%recordsPerPage+recordsPerPage) - 1
		switch vf, vl := ix.hashAt(first), ix.hashAt(last); {
		case vl < h:
			lo, hlo = last+1, vl
		case vf >= h:
			hi, hhi = first, vf
		default: // vf < h <= vl: the answer is in (first, last]
			lo, hi = first+1, last
		}
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if ix.hashAt(mid) < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

const maxProbes = 8 // interpolation probes before falling back to bisection

func (ix *Index) hashAt(i uint64) uint64 {
	return binary.LittleEndian.Uint64(ix.idx[recordPos(i):])
}

func (ix *Index) offsetAt(i uint64) uint64 {
	return binary.LittleEndian.Uint64(ix.idx[recordPos(i)+8:])
}

// checkPage verifies record page p: its CRC, its trailer, and the zero
// padding of a last page. A page is checked once per open Index: index
// files are replaced, never written in place.
func (ix *Index) checkPage(p uint64) error {
	word, bit := &ix.checked[p/64], uint64(1)<<(p%64)
	if word.Load()&bit != 0 {
		return nil
	}
	page := ix.idx[pageSize*(1+p):][:pageSize]
	if !pageOK(page) {
		return ix.corrupt("checksum mismatch in record page %d (bytes %d to %d)", p, pageSize*(1+p), pageSize*(2+p))
	}
	le := binary.LittleEndian
	want := uint64(recordsPerPage)
	if p == ix.h.pages-1 {
		want = ix.h.records - p*recordsPerPage
	}
	k := uint64(le.Uint32(page[pageLenOffset:]))
	if le.Uint64(page[pageNoOffset:]) != p || k != want || !allZero(page[recordSize*k:pageNoOffset]) {
		return ix.corrupt("record page %d has a bad trailer", p)
	}
	word.Or(bit)
	return nil
}

func (ix *Index) corrupt(format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s; %s", ix.idxPath, ErrCorrupt, fmt.Sprintf(format, args...), rebuildHint(ix.csvPath, ix.h))
}

// guard runs fn, turning a fault on the mappings (a file shrank under
// them) into an error.
func (ix *Index) guard(fn func() error) error {
	err := mapping.Guard(fn, ix.csv.m, ix.idxMap)
	if err == mapping.ErrFault {
		return fmt.Errorf("%s or %s: %w", ix.csvPath, ix.idxPath, ErrChanged)
	}
	return err
}

// distinct returns keys without repeats, in first-seen order.
func distinct(keys [][]byte) [][]byte {
	if len(keys) < 2 {
		return keys
	}
	seen := make(map[string]bool, len(keys))
	out := make([][]byte, 0, len(keys))
	for _, k := range keys {
		if !seen[string(k)] {
			seen[string(k)] = true
			out = append(out, k)
		}
	}
	return out
}
