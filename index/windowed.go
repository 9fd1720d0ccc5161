package index

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"

	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
)

// Lookups in a CSV whose source is not mapped (a compressed file) read
// each candidate row through the source: a window from the byte before the
// row, doubled until the row ends inside it (or the CSV does), parsed as
// the mapped path parses the whole file. The rows of a lookup are
// gathered, sorted by offset and passed on in file order, each once. The
// row API ([Index.Rows], [Index.Data], [Index.Scan]) needs the CSV mapped.

// errNotMapped is the row API's error for a CSV that is not mapped.
var errNotMapped = errors.New("the row API (and join) reads a plain CSV, and this one is compressed; decompress it for a join")

// rowWindowBytes is the bytes a candidate's first read takes (a variable
// for the tests, which make rows longer than it).
var rowWindowBytes = 16 << 10

// A foundRow is a row a lookup through the source found: its offset and
// bytes, from its first byte through its terminator (a '\n' added when it
// has none).
type foundRow struct {
	off uint64
	row []byte
}

// getRead is Get for a CSV that is not mapped.
func (ix *Index) getRead(keys [][]byte, fn func(row []byte) error) error {
	keys = distinct(keys)
	if err := ix.prefetchRows(keys); err != nil {
		return err
	}
	var found []foundRow
	for _, key := range keys {
		err := ix.readRows(key, func(off uint64, row []byte) error {
			found = append(found, foundRow{off, row})
			return nil
		})
		if err != nil {
			return err
		}
	}
	slices.SortFunc(found, func(a, b foundRow) int { return cmpUint(a.off, b.off) })
	for _, f := range found {
		if err := fn(f.row); err != nil {
			return err
		}
	}
	return nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// prefetchRows asks a source that can (a source.Prefetcher) to make the
// candidate rows of keys cheap to read: to decode their frames ahead, on
// all cores at once.
func (ix *Index) prefetchRows(keys [][]byte) error {
	pf, ok := ix.csv.src.(source.Prefetcher)
	if !ok {
		return nil
	}
	var offs []int64
	for _, key := range keys {
		h := ix.hash(key)
		for _, p := range []*part{ix.main, ix.tail} {
			if p == nil {
				continue
			}
			err := p.offsets(h, p.locate(h), func(batch []uint64) error {
				for _, off := range batch {
					offs = append(offs, int64(off))
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	pf.Prefetch(offs)
	return nil
}

// readRows calls fn with the offset and bytes of each row whose key is
// key, as rows does, reading each candidate through the source.
func (ix *Index) readRows(key []byte, fn func(off uint64, row []byte) error) error {
	h := ix.hash(key)
	shadow := uint64(math.MaxUint64)
	if ix.tail != nil {
		shadow = ix.tail.h.Base
	}
	for _, p := range []*part{ix.main, ix.tail} {
		if p == nil {
			continue
		}
		err := p.offsets(h, p.locate(h), func(offs []uint64) error {
			for _, off := range offs {
				if err := ix.readCandidate(p, off, h, key, shadow, fn); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		shadow = math.MaxUint64
	}
	return nil
}

// readCandidate is candidate for a CSV read through its source: it reads
// the row at off and passes it to fn if its key is key and it is below
// shadow.
func (ix *Index) readCandidate(p *part, off, h uint64, key []byte, shadow uint64, fn func(uint64, []byte) error) error {
	if off >= p.h.Scanned || off < p.h.Base {
		return p.corrupt("a record points at offset %d, outside the bytes [%d, %d) it indexes", off, p.h.Base, p.h.Scanned)
	}
	if off >= shadow {
		return nil
	}
	w, base, err := ix.rowWindow(p, off)
	if err != nil {
		return err
	}
	var s scan.Scanner
	if err := p.h.InitScanner(&s, w); err != nil {
		return err
	}
	at := int(off) - base
	lineStart := off == 0 || w[at-1] == '\n' || off == uint64(len(scan.BOM)) && bytes.HasPrefix(w, scan.BOM)
	if !lineStart || !s.At(at) || s.Start() != at {
		return ix.movedRow(p, off)
	}
	k, ok := s.Key()
	switch {
	case ok && bytes.Equal(k, key):
		row := bytes.Clone(w[s.Start():s.End()])
		if !s.Terminated() {
			row = append(row, '\n')
		}
		return fn(off, row)
	case ix.grown(p, off):
		// completed since (see candidate)
	case !ok || differ(p, ix.hash(k), h):
		return ix.movedRow(p, off)
	}
	return nil
}

// rowWindow reads the CSV from the byte before off (from 0 near its start,
// for the byte order mark) until the record at off ends inside what was
// read, or the CSV does, and returns the bytes and where they start.
func (ix *Index) rowWindow(p *part, off uint64) ([]byte, int, error) {
	base := max(0, int(off)-1)
	if off <= uint64(len(scan.BOM)) {
		base = 0
	}
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
func (ix *Index) countRead(key []byte) (n int64, err error) {
	if err := ix.prefetchRows([][]byte{key}); err != nil {
		return 0, err
	}
	err = ix.readRows(key, func(uint64, []byte) error { n++; return nil })
	return n, err
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
