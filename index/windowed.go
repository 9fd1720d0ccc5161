package index

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
)

// Lookups in a CSV whose source is not mapped (a compressed file) read
// each candidate row through the source: a window from the byte before the
// row, doubled until the row ends inside it (or the CSV does), parsed as
// the mapped path parses the whole file. The rows of a lookup are
// gathered, sorted by offset and passed on in file order, each once. Of
// the row API, [Rows.Each], [Index.EachRecord] and [Index.Head] read
// through the source too; [Index.Data] and [Index.Scan] need the CSV
// mapped.

// errNotMapped is the error of the row API's calls that need the CSV mapped.
var errNotMapped = errors.New("this call of the row API reads a plain CSV in memory, and this one is compressed: use Rows.Each, EachRecord and Head")

// rowWindowBytes is the bytes a candidate's first read takes (a variable
// for the tests, which make rows longer than it): small, since a read that
// crosses a frame's end decodes the next frame too, which the prefetch did
// not ask for. A first read of 16 KiB crossed a 64 KiB frame's end for a
// quarter of the rows; of 1 KiB, in-process lookups of 6 to 12 rows in
// csvidx compress's zstd took 1.87-1.98 ms instead of 2.23-2.39 ms.
var rowWindowBytes = 1 << 10

// A probe is a record of an index file that points at a row that may
// be a key's: the part, the key and its hash, the row's offset, and the
// offset from which the part is shadowed.
type probe struct {
	p           *part
	key         []byte
	h, off, shd uint64
}

// candidates returns the candidate rows of keys, in the order of the
// index files and their records, and asks a source that can (a
// source.Prefetcher) to make them cheap to read: to decode their frames
// ahead, on all cores at once.
func (ix *Index) candidates(keys [][]byte) ([]probe, error) {
	if ix.pages != nil {
		if err := ix.pages(ix.PageRanges(keys)); err != nil {
			return nil, err
		}
	}
	var cs []probe
	for _, key := range keys {
		h := ix.hash(key)
		err := ix.eachPart(func(p *part, shadow uint64) error {
			return p.offsets(h, p.locate(h), func(offs []uint64) error {
				for _, off := range offs {
					cs = append(cs, probe{p, key, h, off, shadow})
				}
				return nil
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if pf, ok := ix.csv.src.(source.Prefetcher); ok {
		offs := make([]int64, len(cs))
		for i, c := range cs {
			offs[i] = int64(c.off)
		}
		pf.Prefetch(offs)
	}
	return cs, nil
}

// getRead is Get for a CSV that is not mapped.
func (ix *Index) getRead(keys [][]byte, fn func(row []byte) error) error {
	return ix.eachRead(distinct(keys), func(sp Span) error {
		if !sp.Terminated {
			return fn(append(sp.Bytes, '\n'))
		}
		return fn(sp.Bytes)
	})
}

// eachRead calls fn with the rows of keys of a CSV that is not mapped, in
// file order, each once: the candidates read and compared, gathered, and
// sorted by offset.
func (ix *Index) eachRead(keys [][]byte, fn func(Span) error) error {
	cs, err := ix.candidates(keys)
	if err != nil {
		return err
	}
	var found []Span
	for _, c := range cs {
		sp, ok, err := ix.readCandidate(c)
		if err != nil {
			return err
		}
		if ok {
			found = append(found, sp)
		}
	}
	slices.SortFunc(found, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	for _, sp := range found {
		if err := fn(sp); err != nil {
			return err
		}
	}
	return nil
}

// readCandidate is candidate for a CSV read through its source: it reads
// the row of c and returns it, its bytes its own, and ok if its key is
// c's and it is below c's shadow.
func (ix *Index) readCandidate(c probe) (sp Span, ok bool, err error) {
	p, off := c.p, c.off
	if skip, err := inPart(p, off, c.shd); skip || err != nil {
		return Span{}, false, err
	}
	w, base, err := ix.rowWindow(p, off)
	if err != nil {
		return Span{}, false, err
	}
	var s scan.Scanner
	return ix.windowRow(&s, p, off, c.h, c.key, w, base, true)
}

// errPastWindow means a row read from a window of the CSV may go on past
// it.
var errPastWindow = errors.New("the row goes on past the bytes read")

// windowRow reads the record at off from w, the CSV's bytes from base,
// which hold the byte before off (all from the CSV's first byte when off
// is within its byte order mark's length), with s, a candidate of p for
// key (whose hash is h), and returns its span, of w's bytes, and ok if its
// key is key. whole says the record ends within w, or w where the CSV
// does; without, a record that reaches w's end is errPastWindow.
func (ix *Index) windowRow(s *scan.Scanner, p *part, off, h uint64, key []byte, w []byte, base int, whole bool) (Span, bool, error) {
	if err := p.h.InitScanner(s, w); err != nil {
		return Span{}, false, err
	}
	at := int(off) - base
	lineStart := off == 0 || w[at-1] == '\n' || off == uint64(len(scan.BOM)) && bytes.HasPrefix(w, scan.BOM)
	if !lineStart || !s.At(at) || s.Start() != at {
		return Span{}, false, ix.movedRow(p, off)
	}
	if !whole && s.End() >= len(w) {
		return Span{}, false, errPastWindow
	}
	k, has := s.Key()
	if match, err := ix.judgeKey(p, off, h, key, k, has); !match {
		return Span{}, false, err
	}
	return Span{base + s.Start(), base + s.End(), s.Terminated(), w[s.Start():s.End():s.End()]}, true, nil
}

// windowBase returns where a window of the CSV that holds the row at off
// starts: at the byte before it, for the line start, or at the CSV's first
// byte when off is within its byte order mark's length.
func windowBase(off uint64) int {
	if off <= uint64(len(scan.BOM)) {
		return 0
	}
	return int(off) - 1
}

// rowWindow reads the CSV from the byte before off (from 0 near its start,
// for the byte order mark) until the record at off ends inside what was
// read, or the CSV does, and returns the bytes and where they start.
func (ix *Index) rowWindow(p *part, off uint64) ([]byte, int, error) {
	base := windowBase(off)
	for n := rowWindowBytes; ; n *= 2 {
		end := min(ix.csv.size, base+n)
		w := make([]byte, end-base)
		if _, err := ix.csv.src.ReadAt(context.Background(), w, int64(base)); err != nil {
			return nil, 0, err
		}
		if end == ix.csv.size {
			return w, base, nil
		}
		var s scan.Scanner
		if err := p.h.InitScanner(&s, w); err != nil {
			return nil, 0, err
		}
		if s.At(int(off)-base) && s.End() < len(w) {
			return w, base, nil
		}
	}
}

// countRead is Count for a CSV that is not mapped: the candidates read and
// compared, in either format.
func (ix *Index) countRead(key []byte) (int64, error) {
	cs, err := ix.candidates([][]byte{key})
	if err != nil {
		return 0, err
	}
	n := int64(0)
	for _, c := range cs {
		_, ok, err := ix.readCandidate(c)
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// headerRead is Header for a CSV that is not mapped.
func (ix *Index) headerRead() ([]byte, error) {
	h := ix.main.h
	row := make([]byte, h.HeaderEnd-h.HeaderStart)
	if _, err := ix.csv.src.ReadAt(context.Background(), row, int64(h.HeaderStart)); err != nil {
		return nil, err
	}
	return row, nil
}
