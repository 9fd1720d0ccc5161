package multifile

import (
	"path/filepath"
	"sort"

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

// A sliceList is the partList of parts in memory.
type sliceList struct {
	parts []Part
	bases []int64
}

func newSliceList(parts []Part) *sliceList {
	l := &sliceList{parts: parts, bases: make([]int64, len(parts))}
	base := int64(0)
	for i, p := range parts {
		l.bases[i] = base
		base += partLen(p)
	}
	return l
}

func (l *sliceList) count() int                      { return len(l.parts) }
func (l *sliceList) part(i int) (Part, int64, error) { return l.parts[i], l.bases[i], nil }
func (l *sliceList) close() error                    { return nil }
func (l *sliceList) find(off int64) (int, error) {
	return max(0, sort.Search(len(l.bases), func(k int) bool { return l.bases[k] > off })-1), nil
}

func (t *table) count() int                      { return t.n }
func (t *table) part(i int) (Part, int64, error) { return t.entry(i) }

// list returns the parts of m, the manifest at path: m.Parts when it holds
// them, else its table, opened. The caller closes it.
func (m *Manifest) list(path string) (partList, error) {
	if m.Parts != nil {
		return newSliceList(m.Parts), nil
	}
	return openTable(filepath.Join(filepath.Dir(path), m.PartsFile), m.PartCount, m.Size)
}

// concatParts is a partList as the parts of a source.Concat, their paths
// resolved for the manifest's directory dir.
type concatParts struct {
	l    partList
	dir  string
	size int64
}

func (c concatParts) Len() int    { return c.l.count() }
func (c concatParts) Size() int64 { return c.size }

func (c concatParts) Part(i int) (source.ConcatPart, int64, error) {
	p, base, err := c.l.part(i)
	if err != nil {
		return source.ConcatPart{}, 0, err
	}
	return source.ConcatPart{Name: resolve(c.dir, p.Path), Size: p.Size, Skip: p.Skip, Newline: p.Newline}, base, nil
}

func (c concatParts) Find(off int64) (int, error) { return c.l.find(off) }
