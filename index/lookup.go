package index

import (
	"bytes"
	"cmp"
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
	if ix.csv.mem == nil {
		return ix.getRead(keys, fn)
	}
	return ix.Guard(func() error {
		var s scan.Scanner
		if err := ix.main.h.InitScanner(&s, ix.csv.data); err != nil {
			return err
		}
		keys = distinct(keys)
		if len(keys) == 1 { // a run is in file order already
			return ix.rows(&s, keys[0], true, func(r Span) error { return ix.emit(r, fn) })
		}
		ix.prefetch(keys)
		// Every key's candidates, then their rows in file order: each
		// page of the CSV is read once, and released behind (releaser),
		// however many keys and rows.
		cs, err := ix.candidates(keys)
		if err != nil {
			return err
		}
		// Sorted by offset as pairs of no pointers: probes hold some, and
		// moving them costs the collector's write barriers. (At one
		// offset, one row: its key is at most one of the keys.)
		order := make([]offsetAt, len(cs))
		for i, c := range cs {
			order[i] = offsetAt{c.off, i}
		}
		slices.SortFunc(order, func(a, b offsetAt) int { return cmp.Compare(a.off, b.off) })
		var rel releaser
		var rr rowReader
		ahead := make([]uint64, 0, prefetchRows)
		for k, o := range order {
			if k%prefetchRows == 0 && !rel.preads() { // the next rows' first bytes, loaded together
				ahead = ahead[:0]
				for _, n := range order[k:min(len(order), k+prefetchRows)] {
					ahead = append(ahead, n.off)
				}
				ix.touchRows(ahead)
			}
			c := &cs[o.i]
			err := ix.readCandidateRow(&rel, &rr, &s, c.p, c.off, c.h, c.key, c.shd, func(r Span) error { return ix.emit(r, fn) })
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Count returns how many rows have key. A format 1 index counts its
// records of key's hash, reading no rows: that is the number of rows of key
// unless two keys share a 64-bit hash. A format 2 index keeps fingerprints
// of 32 bits or more, which keys share more often (an absent key in up to
// one lookup in 64), so Count reads the candidate rows and compares their
// keys, as a lookup does: the count is exact. Reading them costs what
// parsing them costs; an absent key's count reads no row at all in nearly
// every lookup.
func (ix *Index) Count(key []byte) (n int64, err error) {
	if ix.csv.mem == nil {
		return ix.countRead(key)
	}
	err = ix.Guard(func() error {
		var s scan.Scanner
		if err := ix.main.h.InitScanner(&s, ix.csv.data); err != nil {
			return err
		}
		h := ix.hash(key)
		count := func(Span) error { n++; return nil }
		return ix.eachPart(func(p *part, shadow uint64) error {
			var rel releaser
			var rr rowReader
			return p.offsets(h, p.locate(h), func(offs []uint64) error {
				for _, off := range offs {
					switch {
					case p.h.Dense():
						if err := ix.readCandidateRow(&rel, &rr, &s, p, off, h, key, shadow, count); err != nil {
							return err
						}
					case off < shadow && ix.still(p, off, key):
						n++
					}
				}
				return nil
			})
		})
	})
	return n, err
}

// Header returns the CSV's header record verbatim, ending with '\n', or
// nil when the CSV has none.
func (ix *Index) Header() ([]byte, error) {
	h := ix.main.h
	if h.HeaderEnd == 0 {
		return nil, nil
	}
	var row []byte
	var err error
	if ix.csv.mem == nil {
		row, err = ix.headerRead()
	} else {
		err = ix.Guard(func() error {
			row = bytes.Clone(ix.csv.data[h.HeaderStart:h.HeaderEnd])
			return nil
		})
	}
	if len(row) > 0 && row[len(row)-1] != '\n' {
		row = append(row, '\n')
	}
	return row, err
}

// A Span is a row of the CSV found by a lookup: its bytes [Start, End) of
// the CSV, from its first byte through its terminator, which Bytes holds;
// Terminated is false for a last record with no terminator. Bytes is a
// piece of [Index.Data] when the CSV is mapped (read it inside
// [Index.Guard]), else a copy.
type Span struct {
	Start, End int
	Terminated bool
	Bytes      []byte
}

// rows calls fn with each row whose key is key, in file order: the
// candidates of the key's hash in the main index, then in the tail (whose
// rows all come later in the file), read and compared. Main records at or
// past the tail's base are shadowed by the tail, which rescanned them.
// With pread, a heavy key's rows past the first preadAfter are read by
// pread (see readCandidateRow), their spans' bytes valid during fn only.
func (ix *Index) rows(s *scan.Scanner, key []byte, pread bool, fn func(Span) error) error {
	h := ix.hash(key)
	return ix.eachPart(func(p *part, shadow uint64) error {
		return ix.partRows(s, p, h, key, shadow, pread, fn)
	})
}

// eachPart calls fn with each index file in the order lookups read them,
// the main index and then the tail, with the offset from which the file's
// records are shadowed: the tail's base for the main index (the tail
// rescanned those rows), none for the tail.
func (ix *Index) eachPart(fn func(p *part, shadow uint64) error) error {
	if err := fn(ix.main, ix.shadow()); err != nil || ix.tail == nil {
		return err
	}
	return fn(ix.tail, math.MaxUint64)
}

// shadow returns the offset from which the main index's records are
// shadowed by the tail's, which rescanned them: its base, or none.
func (ix *Index) shadow() uint64 {
	if ix.tail != nil {
		return ix.tail.h.Base
	}
	return math.MaxUint64
}

// partRows is rows in one index file: the candidates below shadow.
func (ix *Index) partRows(s *scan.Scanner, p *part, h uint64, key []byte, shadow uint64, pread bool, fn func(Span) error) error {
	// An index search that took long read from storage: the rows are
	// likely not in memory either, so ask for them ahead. (Only the
	// search is timed: walking a long run takes long from memory too.)
	start := time.Now()
	at := p.locate(h)
	cold := time.Since(start) > coldSearch
	batches := 0
	var rel releaser
	var rr rowReader
	if !pread {
		rel.mappedOnly = true
	}
	return p.offsets(h, at, func(offs []uint64) error {
		batches++
		ask := cold && (len(offs) > 1 || batches > 1) // a single row: reading it asks as much
		asked := 0                                    // when cold, rows [0, asked) of the batch were asked for
		for i, off := range offs {
			if i%prefetchRows == 0 {
				if ask {
					asked = ix.askRows(offs, asked, min(len(offs), i+coldAhead))
				}
				if !rel.preads() {
					ix.touchRows(offs[i:min(len(offs), i+prefetchRows)])
				}
			}
			if err := ix.readCandidateRow(&rel, &rr, s, p, off, h, key, shadow, fn); err != nil {
				return err
			}
		}
		return nil
	})
}

// An offsetAt is a candidate's offset and where it is in a slice of them.
type offsetAt struct {
	off uint64
	i   int
}

// releaseRows is how many rows a lookup reads from the mapping between
// releases of the pages behind it (see releaser): with the kernel's
// fault-around, 64 KiB each or more, 8 MiB or a little more. (256 left a
// batch of 1000 keys at 35 MiB in all, its index's pages included; 128 at
// 31 MiB, in the same time.)
const releaseRows = 128

// A releaser keeps a lookup's resident memory bounded whatever its key's
// weight: every releaseRows rows, read in ascending offsets, it releases
// the mapping's pages behind the row about to be read (mapping.Release).
// A light key's lookup never releases anything.
type releaser struct {
	rows       int
	from       int  // the first byte not released: the first row's, at first
	mappedOnly bool // never read by pread: the spans must be of Data (Rows.Each)
}

// preads reports whether the lookup reads its next rows by pread (see
// readCandidateRow).
func (r *releaser) preads() bool { return !r.mappedOnly && r.rows >= preadAfter }

// next counts the row at off, about to be read, and releases the pages
// behind it when it is time.
func (r *releaser) next(ix *Index, off uint64) {
	if r.rows == 0 {
		r.from = int(off)
	}
	if r.rows++; r.rows%releaseRows == 0 && int(off) > r.from {
		ix.csv.mapping().Release(r.from, int(off))
		r.from = int(off)
	}
}

// readCandidateRow reads the candidate row at off as candidate does, from
// the mapping for a lookup's first preadAfter rows, by pread after
// (candidateRead). Every row read from the mapping, a row too long for
// pread's window included, is counted by rel, which releases the pages
// behind them.
func (ix *Index) readCandidateRow(rel *releaser, rr *rowReader, s *scan.Scanner, p *part, off, h uint64, key []byte, shadow uint64, fn func(Span) error) error {
	if rel.preads() {
		if done, err := ix.candidateRead(rr, p, off, h, key, shadow, fn); done || err != nil {
			return err
		}
	}
	rel.next(ix, off)
	return ix.candidate(s, p, off, h, key, shadow, fn)
}

// candidate reads the row at off, a candidate of p for key (whose hash is
// h), and passes it to fn if its key is key and it is below shadow.
func (ix *Index) candidate(s *scan.Scanner, p *part, off, h uint64, key []byte, shadow uint64, fn func(Span) error) error {
	if skip, err := inPart(p, off, shadow); skip || err != nil {
		return err
	}
	if !ix.lineStart(int(off)) || !s.At(int(off)) || s.Start() != int(off) {
		return ix.movedRow(p, off)
	}
	k, ok := s.Key()
	if match, err := ix.judgeKey(p, off, h, key, k, ok); !match {
		return err
	}
	if !s.Terminated() && s.End() == len(ix.csv.data) {
		if err := ix.stillWhole(); err != nil {
			return err
		}
	}
	return fn(Span{s.Start(), s.End(), s.Terminated(), ix.csv.data[s.Start():s.End()]})
}

// stillWhole returns an error wrapping ErrChanged when the CSV is now
// shorter than its mapping. A row read up to the mapping's end without a
// terminator may hold zeros where its bytes were cut off: a mapping shows
// zeros past the end of a file cut short within its last page, where a
// read past that page faults (see Guard). One stat, for that row alone.
func (ix *Index) stillWhole() error {
	now, err := ix.csv.src.Current()
	if err != nil {
		return err
	}
	if mapped := int64(len(ix.csv.data)); now.Size < mapped {
		return fmt.Errorf("%s: %w: it shrank from %d to %d bytes", ix.csvPath, ErrChanged, mapped, now.Size)
	}
	return nil
}

// inPart reports whether the record of p at off is to be skipped (at or
// past shadow), or an error when p does not cover off: a corrupt index.
func inPart(p *part, off, shadow uint64) (skip bool, err error) {
	if off >= p.h.Scanned || off < p.h.Base {
		return true, p.corrupt("a record points at offset %d, outside the bytes [%d, %d) it indexes", off, p.h.Base, p.h.Scanned)
	}
	return off >= shadow, nil
}

// judgeKey reports whether the row at off, a candidate of p for key (whose
// hash is h), whose key is k (ok false when it has none), is a row of key;
// when it is not, an error if it cannot have been the row indexed there.
func (ix *Index) judgeKey(p *part, off, h uint64, key, k []byte, ok bool) (bool, error) {
	switch {
	case ok && bytes.Equal(k, key):
		return true, nil
	case ix.grown(p, off):
		// The last row had no terminator, and rows were appended
		// since: it was completed, and its key is another one now
		// (12 completed by "46\n" is 1246). update indexes it anew.
	case !ok || differ(p, ix.hash(k), h):
		// Not a collision (another key with the same hash, or the same
		// fingerprint): this row is not the one that was indexed here.
		return false, ix.movedRow(p, off)
	}
	return false, nil
}

// differ reports whether a row whose key hashes to got cannot have been
// indexed under the record p found for hash want: in format 1 the hashes
// differ, in format 2 their fingerprints do.
func differ(p *part, got, want uint64) bool {
	return p.searchKey(got) != p.searchKey(want)
}

// grown reports whether the record of p at off is the last row p indexed
// without its terminator, and the CSV has grown since: the row may have
// been completed, and its key changed.
func (ix *Index) grown(p *part, off uint64) bool {
	return off == p.h.Resume && p.h.Resume < p.h.Scanned && uint64(ix.csv.size) > p.h.Scanned
}

// still reports whether the record of p at off, whose hash is key's, still
// counts for key: unless it is a grown last row (see grown), which is read
// to see whether its key is still key.
func (ix *Index) still(p *part, off uint64, key []byte) bool {
	if !ix.grown(p, off) {
		return true
	}
	s := new(scan.Scanner)
	err := p.h.InitScanner(s, ix.csv.data)
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
func (ix *Index) emit(r Span, fn func([]byte) error) error {
	row := r.Bytes
	if !r.Terminated {
		row = append(bytes.Clone(row), '\n')
	}
	return fn(row)
}

// Guard runs fn, turning a fault on the mappings of the CSV and the index
// (a file shrank under them) into an error that wraps ErrChanged. Every
// read of [Index.Data] and every [Rows.Each] must run inside it.
func (ix *Index) Guard(fn func() error) error {
	maps := append([]*mapping.Map{ix.csv.mapping()}, ix.main.maps()...)
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
