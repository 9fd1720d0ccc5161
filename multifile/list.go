package multifile

import (
	"github.com/csvidx/csvidx/source"
)

// A partList is a manifest's parts, by number: in memory (a build's
// Parts), or its table on disk (a lookup's, which reads only the entries
// it needs).
type partList interface {
	count() int
	part(i int) (Part, int64, error) // part i and where it starts
	find(off int64) (int, error)     // the part that holds off
	close() error
}

// A sliceList is the partList of parts in memory: where each starts, and
// which holds an offset, are the source.PartSlice's of their lengths.
type sliceList struct {
	parts []Part
	ps    *source.PartSlice
}

// newSliceList returns the list of parts; one that skips more than its
// size is an error.
func newSliceList(parts []Part) (*sliceList, error) {
	cps := make([]source.ConcatPart, len(parts))
	for i, p := range parts {
		cps[i] = source.ConcatPart{Name: p.Path, Size: p.Size, Skip: p.Skip, Newline: p.Newline}
	}
	ps, err := source.NewPartSlice(cps)
	return &sliceList{parts: parts, ps: ps}, err
}

func (l *sliceList) count() int                  { return len(l.parts) }
func (l *sliceList) close() error                { return nil }
func (l *sliceList) find(off int64) (int, error) { return l.ps.Find(off) }
func (l *sliceList) part(i int) (Part, int64, error) {
	_, base, err := l.ps.Part(i)
	return l.parts[i], base, err
}

func (t *table) count() int                      { return t.n }
func (t *table) part(i int) (Part, int64, error) { return t.entry(i) }

// list returns the parts of m, the manifest at path: m.Parts when it holds
// them, else its table, opened. The caller closes it.
func (m *Manifest) list(path string) (partList, error) {
	if m.Parts != nil {
		return newSliceList(m.Parts)
	}
	return openTable(resolve(dirOf(path), m.PartsFile), m.PartCount, m.Size)
}

// concatParts is the first n parts of a partList, of size bytes, as the
// parts of a source.Concat, their paths resolved for the manifest's
// directory dir.
type concatParts struct {
	l    partList
	dir  string
	size int64
	n    int
}

func (c concatParts) Len() int    { return c.n }
func (c concatParts) Size() int64 { return c.size }

func (c concatParts) Part(i int) (source.ConcatPart, int64, error) {
	p, base, err := c.l.part(i)
	if err != nil {
		return source.ConcatPart{}, 0, err
	}
	return source.ConcatPart{Name: resolve(c.dir, p.Path), Size: p.Size, Skip: p.Skip, Newline: p.Newline}, base, nil
}

func (c concatParts) Find(off int64) (int, error) { return c.l.find(off) }
