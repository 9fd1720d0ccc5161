package index

import "github.com/csvidx/csvidx/internal/mapping"

// Diagnostics for benchmarks: they let a program measure lookups on a cold
// cache and count the pages a lookup reads. Lookups never use them.

// HasFence reports whether lookups use a fence file.
func (ix *Index) HasFence() bool { return ix.main.fence != nil }

// Residency counts the pages of an open index's files that are in memory.
type Residency struct {
	Index int // pages of the main index and the tail
	Fence int // pages of the fence
	CSV   int // pages of the CSV
}

// DropCache evicts the pages of the index files and the CSV from this
// process's mappings and from the page cache (posix_fadvise DONTNEED, no
// privilege needed), so that the next lookup reads from storage as the first
// lookup after a cold start does. Linux only.
func (ix *Index) DropCache() error {
	return ix.eachFile(func(m *mapping.Map, path string, _ *int) error { return m.Evict(path) }, nil)
}

// Resident reports how many pages of each file are in memory: after
// DropCache and one lookup, the pages that lookup read. Linux only.
func (ix *Index) Resident() (Residency, error) {
	var r Residency
	err := ix.eachFile(func(m *mapping.Map, _ string, n *int) error {
		k, err := m.Resident()
		*n += k
		return err
	}, &r)
	return r, err
}

// eachFile calls fn with each mapped file and the counter it belongs to.
func (ix *Index) eachFile(fn func(m *mapping.Map, path string, n *int) error, r *Residency) error {
	var dummy Residency
	if r == nil {
		r = &dummy
	}
	type file struct {
		m    *mapping.Map
		path string
		n    *int
	}
	files := []file{{ix.main.m, ix.main.path, &r.Index}}
	if ix.csv.mem != nil {
		files = append(files, file{ix.csv.mapping(), ix.csvPath, &r.CSV})
	}
	if ix.tail != nil {
		files = append(files, file{ix.tail.m, ix.tail.path, &r.Index})
	}
	if f := ix.main.fence; f != nil {
		files = append(files, file{f.Map(), fencePath(ix.idxPath), &r.Fence})
	}
	for _, f := range files {
		if err := fn(f.m, f.path, f.n); err != nil {
			return err
		}
	}
	return nil
}
