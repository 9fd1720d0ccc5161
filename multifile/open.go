package multifile

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/source"
)

// Index is an open manifest: the lookups of its keys, each in its
// partition's index file of each layer, opened when a key of it is first
// looked up.
type Index struct {
	m      *Manifest
	path   string
	hash   func([]byte) uint64
	layers []layer
	parts  map[int]*partition // by layer and partition: see at
	opts   OpenOptions

	listOnce sync.Once
	list     partList // the parts, read when first needed (see lazyList)
	listErr  error
}

// OpenOptions say how a manifest's index files are opened.
type OpenOptions struct {
	// OpenIndex opens the index file at path (a URL when the manifest is
	// at one) over csv, the concatenation it indexes, and returns it and
	// what closes it; nil for index.Open of a local file. The remote build
	// sets it to open index files at URLs (package remoteindex).
	OpenIndex func(path string, csv *source.Concat) (*index.Index, func() error, error)
	// OpenURL, when set, opens the files at URLs that lookups read (else
	// source.Open): the remote build's reads their first and last bytes,
	// which their check hashes, in one round trip.
	OpenURL func(url string) (source.Source, error)
}

// A partition is one index file of a manifest, open, with the
// concatenation it reads rows from.
type partition struct {
	ix     *index.Index
	close  func() error // closes ix
	concat *source.Concat
}

// Open opens the manifest at path. Its index files are opened when first
// needed, and its parts when first read.
func Open(path string) (*Index, error) {
	return OpenWith(path, nil, nil)
}

// OpenWith opens the manifest at path, or at its URL, as Open does: its
// bytes data when the caller read them already (else nil), its index
// files opened as o says.
func OpenWith(path string, data []byte, o *OpenOptions) (*Index, error) {
	var m *Manifest
	var err error
	if data != nil {
		m, err = parseManifest(path, data)
	} else {
		m, err = ReadManifest(path)
	}
	if err != nil {
		return nil, err
	}
	x := &Index{m: m, path: path, hash: index.KeyHash(), layers: m.layers(), parts: map[int]*partition{}}
	if o != nil {
		x.opts = *o
	}
	if x.opts.OpenIndex == nil {
		x.opts.OpenIndex = openLocal
	}
	if isURL(path) {
		go x.listOnce.Do(x.readList) // the table's request, alongside the index file's first (the fields read after Do only)
	}
	return x, nil
}

// partList returns the parts, their table opened on the first call.
func (x *Index) partList() (partList, error) {
	x.listOnce.Do(x.readList)
	return x.list, x.listErr
}

// readList opens the parts' table: listOnce's function.
func (x *Index) readList() { x.list, x.listErr = x.m.list(x.path) }

// lazyList is the partList of an open manifest, its table read when a
// part is first asked for, so that an index file opens meanwhile.
type lazyList struct{ x *Index }

func (l lazyList) count() int   { return l.x.m.partCount() }
func (l lazyList) close() error { return nil } // the Index closes its list

func (l lazyList) part(i int) (Part, int64, error) {
	pl, err := l.x.partList()
	if err != nil {
		return Part{}, 0, err
	}
	return pl.part(i)
}

func (l lazyList) find(off int64) (int, error) {
	pl, err := l.x.partList()
	if err != nil {
		return 0, err
	}
	return pl.find(off)
}

// openLocal opens the index file at path, a local one, over csv.
func openLocal(path string, csv *source.Concat) (*index.Index, func() error, error) {
	ix, err := index.Open(csv.Name(), &index.Options{IndexPath: path, CSV: csv})
	if err != nil {
		return nil, nil, err
	}
	return ix, ix.Close, nil
}

// Manifest returns the manifest.
func (x *Index) Manifest() *Manifest { return x.m }

// partitionOf returns the partition of key (a key as an index takes it:
// see index.Index.Key): its hash modulo the number of partitions.
func (x *Index) partitionOf(key []byte) int {
	return int(x.hash(key) % uint64(len(x.m.Partitions)))
}

// at returns the key of x.parts of partition j of layer k.
func (x *Index) at(k, j int) int { return k*len(x.m.Partitions) + j }

// open returns partition j of layer k, open.
func (x *Index) open(k, j int) (*partition, error) {
	if p := x.parts[x.at(k, j)]; p != nil {
		return p, nil
	}
	ly := x.layers[k]
	l := lazyList{x}
	concat := x.m.concatOn(l, x.path, ly, true, x.opts.OpenURL)
	if x.opts.OpenURL != nil {
		concat.FetchAhead() // its files at URLs fetch a lookup's rows ahead
	}
	ix, closeIx, err := x.opts.OpenIndex(resolve(dirOf(x.path), ly.partitions[j]), concat)
	if err != nil {
		return nil, err
	}
	p := &partition{ix: ix, close: closeIx, concat: concat}
	x.parts[x.at(k, j)] = p
	return p, nil
}

// Key returns the key of a lookup of value, as the index takes it (see
// index.Index.Key), through any partition: they share the key.
func (x *Index) Key(value []byte) ([]byte, error) {
	p, err := x.open(0, 0)
	if err != nil {
		return nil, err
	}
	return p.ix.Key(value)
}

// A Row is a row found, and where it is: the part that holds it (its
// index in the manifest's Parts, and its path) and its offset there.
type Row struct {
	Bytes []byte
	Part  int
	Path  string
	At    int64
}

// Get calls fn with every row whose key is one of keys (as the index takes
// them: see Key), each once, in the order of the concatenation, which is
// the order of the parts, then of their rows, as index.Index.Get does for
// one file. The row is valid only during the call.
func (x *Index) Get(keys [][]byte, fn func(row []byte) error) error {
	return x.Each(keys, func(r Row) error { return fn(r.Bytes) })
}

// Each calls fn as Get does, with each row and where it is.
func (x *Index) Each(keys [][]byte, fn func(Row) error) error {
	type found struct {
		start int64
		row   []byte
		part  *partition
	}
	var rows []found
	byPartition := map[int][][]byte{} // the distinct keys, by partition
	seen := map[string]bool{}
	for _, key := range keys {
		if !seen[string(key)] {
			seen[string(key)] = true
			j := x.partitionOf(key)
			byPartition[j] = append(byPartition[j], key)
		}
	}
	for j, group := range byPartition {
		for k := range x.layers {
			p, err := x.open(k, j)
			if err != nil {
				return err
			}
			r, err := p.ix.Rows()
			if err != nil {
				return err
			}
			if err := r.Prefetch(group); err != nil { // a remote index file: its pages, then the rows, each in one round trip for the group
				return err
			}
			for _, key := range group {
				err = r.Each(key, func(sp index.Span) error {
					rows = append(rows, found{int64(sp.Start), bytes.Clone(sp.Bytes), p})
					return nil
				})
				if err != nil {
					return err
				}
			}
		}
	}
	slices.SortFunc(rows, func(a, b found) int { return int(a.start - b.start) })
	for _, f := range rows {
		i, at, err := f.part.concat.PartAt(f.start)
		if err != nil {
			return err
		}
		part, _, err := lazyList{x}.part(i)
		if err != nil {
			return err
		}
		row := f.row
		if len(row) > 0 && row[len(row)-1] != '\n' {
			row = append(row, '\n')
		}
		if err := fn(Row{Bytes: row, Part: i, Path: resolve(dirOf(x.path), part.Path), At: at}); err != nil {
			return err
		}
	}
	return nil
}

// Count returns how many rows have key.
func (x *Index) Count(key []byte) (int64, error) {
	total := int64(0)
	for k := range x.layers {
		p, err := x.open(k, x.partitionOf(key))
		if err != nil {
			return 0, err
		}
		n, err := p.ix.Count(key)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// Header returns the parts' header record, with its line end (none when
// they have none).
func (x *Index) Header() ([]byte, error) {
	h := withoutBOM(x.m.Header)
	if len(h) > 0 && h[len(h)-1] != '\n' {
		h = append(slices.Clip(h), '\n')
	}
	return h, nil
}

// KeyColumns returns the key's columns, 0-based.
func (x *Index) KeyColumns() []int {
	p, err := x.open(0, 0)
	if err != nil {
		return nil
	}
	return p.ix.KeyColumns()
}

// Delimiter returns the parts' delimiter.
func (x *Index) Delimiter() byte { return x.m.Delimiter[0] }

// BytesBehind returns 0: the parts are read as they were indexed, or not
// at all (see Check).
func (x *Index) BytesBehind() int64 { return 0 }

// Check returns nil: each part is checked against the manifest when it is
// first read, and a read of one that changed fails.
func (x *Index) Check() error { return nil }

// Close closes the partitions open.
func (x *Index) Close() error {
	var first error
	for at, p := range x.parts {
		if err := p.close(); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", x.layers[at/len(x.m.Partitions)].partitions[at%len(x.m.Partitions)], err)
		}
		delete(x.parts, at)
	}
	x.listOnce.Do(func() {}) // none opened later
	if x.list != nil {
		x.list.close()
	}
	x.list, x.listErr = nil, fmt.Errorf("%s: closed", x.path)
	return first
}

// Path returns the manifest's path.
func (x *Index) Path() string { return x.path }

// Info describes the index as its first partition's index file does (its
// key, dialect, format), with the manifest's path for the CSV's and the
// index's, its run for the generation, and the rows and sizes of all its
// partitions, in every layer; an index file that cannot be opened is
// described as broken.
func (x *Index) Info() *index.Info {
	info := &index.Info{CSVPath: x.path, IndexPath: x.path, State: "broken"}
	for at := range len(x.layers) * len(x.m.Partitions) {
		p, err := x.open(at/len(x.m.Partitions), at%len(x.m.Partitions))
		if err != nil {
			info.Error = err.Error()
			return info
		}
		pi := p.ix.Info()
		if at == 0 {
			*info = *pi
			info.CSVPath, info.IndexPath, info.Default = x.path, x.path, true
			info.Generation, info.Fence = x.m.Run, "" // the run's, and a fence beside each index file
			info.Rows, info.Records, info.ShortRows, info.BlankLines, info.IndexBytes = 0, 0, 0, 0, 0
		}
		info.Rows += pi.Rows
		info.Records += pi.Records
		info.ShortRows += pi.ShortRows
		info.BlankLines += pi.BlankLines
		info.IndexBytes += pi.IndexBytes
	}
	info.ScannedBytes, info.CSVBytes = x.m.Size, x.m.Size // the whole concatenation's, not the first layer's
	if info.Rows > 0 {
		info.BytesPerRow = float64(info.IndexBytes) / float64(info.Rows)
	}
	return info
}
