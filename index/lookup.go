package index

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"time"

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
		if err := s.Init(ix.csv.data, ix.main.h.delim, int(ix.main.h.keyCol)); err != nil {
			return err
		}
		keys = distinct(keys)
		if len(keys) == 1 { // a run is in file order already
			return ix.rows(&s, keys[0], func(r span) error { return ix.emit(r, fn) })
		}
		ix.prefetch(keys)
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
		h := ix.hash(key)
		first, end, err := ix.main.run(h)
		if err != nil {
			return err
		}
		for i := first; i < end; i++ {
			if off := ix.main.offsetAt(i); (ix.tail == nil || off < ix.tail.h.base) && ix.still(ix.main, off, key) {
				n++
			}
		}
		if ix.tail != nil {
			first, end, err := ix.tail.run(h)
			if err != nil {
				return err
			}
			for i := first; i < end; i++ {
				if ix.still(ix.tail, ix.tail.offsetAt(i), key) {
					n++
				}
			}
		}
		return nil
	})
	return n, err
}

// Header returns the CSV's header record verbatim, ending with '\n', or
// nil when the CSV has none.
func (ix *Index) Header() ([]byte, error) {
	h := ix.main.h
	if h.headerEnd == 0 {
		return nil, nil
	}
	var row []byte
	err := ix.guard(func() error {
		row = bytes.Clone(ix.csv.data[h.headerStart:h.headerEnd])
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
// candidates of the key's hash in the main index, then in the tail (whose
// rows all come later in the file), read and compared. Main records at or
// past the tail's base are shadowed by the tail, which rescanned them.
func (ix *Index) rows(s *scan.Scanner, key []byte, fn func(span) error) error {
	h := ix.hash(key)
	shadow := uint64(math.MaxUint64)
	if ix.tail != nil {
		shadow = ix.tail.h.base
	}
	for _, p := range []*part{ix.main, ix.tail} {
		if p == nil {
			continue
		}
		if err := ix.partRows(s, p, h, key, shadow, fn); err != nil {
			return err
		}
		shadow = math.MaxUint64
	}
	return nil
}

// partRows is rows in one index file: the candidates below shadow.
func (ix *Index) partRows(s *scan.Scanner, p *part, h uint64, key []byte, shadow uint64, fn func(span) error) error {
	// An index search that took long read from storage: the rows are
	// likely not in memory either, so ask for them ahead. (Only the
	// search is timed: walking a long run takes long from memory too.)
	start := time.Now()
	first := p.lowerBound(h)
	cold := time.Since(start) > coldSearch
	first, end, err := p.runFrom(h, first)
	if err != nil {
		return err
	}
	cold = cold && end-first > 1 // a single row: reading it asks as much
	asked := first               // when cold, rows [first, asked) were asked for
	for i := first; i < end; i++ {
		if (i-first)%prefetchRows == 0 {
			if cold {
				asked = ix.askRows(p, asked, min(end, i+coldAhead))
			}
			ix.touchRows(p, i, min(end, i+prefetchRows))
		}
		off := p.offsetAt(i)
		if off >= p.h.scanned || off < p.h.base {
			return p.corrupt("record %d points at offset %d, outside the bytes [%d, %d) it indexes", i, off, p.h.base, p.h.scanned)
		}
		if off >= shadow {
			continue
		}
		if !ix.lineStart(int(off)) || !s.At(int(off)) || s.Start() != int(off) {
			return ix.movedRow(p, off)
		}
		k, ok := s.Key()
		switch {
		case ok && bytes.Equal(k, key):
			if err := fn(span{s.Start(), s.End(), s.Terminated()}); err != nil {
				return err
			}
		case ix.grown(p, off):
			// The last row had no terminator, and rows were appended
			// since: it was completed, and its key is another one now
			// (12 completed by "46\n" is 1246). update indexes it anew.
		case !ok || ix.hash(k) != h:
			// Not a hash collision (another key with the same hash): this
			// row is not the one that was indexed here.
			return ix.movedRow(p, off)
		}
	}
	return nil
}

// grown reports whether the record of p at off is the last row p indexed
// without its terminator, and the CSV has grown since: the row may have
// been completed, and its key changed.
func (ix *Index) grown(p *part, off uint64) bool {
	return off == p.h.resume && p.h.resume < p.h.scanned && uint64(len(ix.csv.data)) > p.h.scanned
}

// still reports whether the record of p at off, whose hash is key's, still
// counts for key: unless it is a grown last row (see grown), which is read
// to see whether its key is still key.
func (ix *Index) still(p *part, off uint64, key []byte) bool {
	if !ix.grown(p, off) {
		return true
	}
	s, err := scan.New(ix.csv.data, p.h.delim, int(p.h.keyCol))
	if err != nil || !s.At(int(off)) {
		return false
	}
	k, ok := s.Key()
	return ok && bytes.Equal(k, key)
}

// lineStart reports whether a record can start at off: at the start of the
// data (after a byte order mark) or after a newline. Every record the
// index holds does, unless the CSV was rewritten in place.
func (ix *Index) lineStart(off int) bool {
	d := ix.csv.data
	return off == 0 || d[off-1] == '\n' || off == len(scan.BOM) && bytes.HasPrefix(d, scan.BOM)
}

// movedRow is the error for a record of p whose row is not what the index
// says: no row starts there, or it has no key with the record's hash. The
// CSV was edited in place, keeping its size and both ends, which the
// freshness check cannot see (or the index was forged).
func (ix *Index) movedRow(p *part, off uint64) error {
	return mustRebuild(ix.csvPath, p.path, p.h, fmt.Errorf("%s is %w: the row at byte %d of %s is not the one it indexed: the CSV was edited in place",
		p.path, ErrStale, off, ix.csvPath))
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

// guard runs fn, turning a fault on the mappings (a file shrank under
// them) into an error.
func (ix *Index) guard(fn func() error) error {
	maps := append([]*mapping.Map{ix.csv.m}, ix.main.maps()...)
	err := mapping.Guard(fn, append(maps, ix.tail.maps()...)...)
	if err == mapping.ErrFault {
		return fmt.Errorf("%s or its index: %w", ix.csvPath, ErrChanged)
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
