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
	cs, err := ix.candidates(distinct(keys))
	if err != nil {
		return err
	}
	var found []foundRow
	for _, c := range cs {
		row, err := ix.readCandidate(c)
		if err != nil {
			return err
		}
		if row != nil {
			found = append(found, foundRow{c.off, row})
		}
	}
	slices.SortFunc(found, func(a, b foundRow) int { return cmp.Compare(a.off, b.off) })
	for _, f := range found {
		if err := fn(f.row); err != nil {
			return err
		}
	}
	return nil
}

// readCandidate is candidate for a CSV read through its source: it reads
// the row of c and returns it, through its terminator (a '\n' added when
// it has none), if its key is c's and it is below c's shadow; else nil.
func (ix *Index) readCandidate(c probe) ([]byte, error) {
	p, off := c.p, c.off
	if skip, err := inPart(p, off, c.shd); skip || err != nil {
		return nil, err
	}
	w, base, err := ix.rowWindow(p, off)
	if err != nil {
		return nil, err
	}
	var s scan.Scanner
	if err := p.h.InitScanner(&s, w); err != nil {
		return nil, err
	}
	at := int(off) - base
	lineStart := off == 0 || w[at-1] == '\n' || off == uint64(len(scan.BOM)) && bytes.HasPrefix(w, scan.BOM)
	if !lineStart || !s.At(at) || s.Start() != at {
		return nil, ix.movedRow(p, off)
	}
	k, ok := s.Key()
	if match, err := ix.judgeKey(p, off, c.h, c.key, k, ok); !match {
		return nil, err
	}
	row := bytes.Clone(w[s.Start():s.End()])
	if !s.Terminated() {
		row = append(row, '\n')
	}
	return row, nil
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
func (ix *Index) countRead(key []byte) (int64, error) {
	cs, err := ix.candidates([][]byte{key})
	if err != nil {
		return 0, err
	}
	n := int64(0)
	for _, c := range cs {
		row, err := ix.readCandidate(c)
		if err != nil {
			return 0, err
		}
		if row != nil {
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
