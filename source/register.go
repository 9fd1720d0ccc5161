package source

import (
	"sync"
	"sync/atomic"
)

// Backends read what Open cannot map as plain CSV: a package that reads a
// compressed format registers one, from an init function, and Open picks
// it by the file's first bytes. Package source links no decoder itself, so
// that the programs that read only plain files do not pay for the
// decoders' initialisation (see package compressed): a program reads a
// compressed format when it imports the package that registers its backend.

// A Backend opens the files of a compressed format as Sources of their
// plain bytes.
type Backend struct {
	// Name names the format, for messages and tests: "bgzf", "zstd".
	Name string
	// Match reports whether a file whose first bytes are head is one the
	// backend reads. Open asks only about compressed data (head starts
	// with a magic Compression tells), and gives it HeadLen bytes, or the
	// whole file when it is shorter. It must not keep head.
	Match func(head []byte) bool
	// Open opens the file at path, which Match accepted, as a Source of
	// its plain bytes.
	Open func(path string) (Source, error)
	// OpenTable, when set, opens the file at path as Open does, through
	// table, the backend's table of the file as a Tabled source of it
	// gave it (see source.OpenTable).
	OpenTable func(path string, table []byte) (Source, error)
	// Extend, when set, opens the file at path as OpenTable does, but
	// through table, a table of a prefix of the file (the file as it was
	// when a Tabled source of it gave the table; more was appended since),
	// walking only what follows that prefix: an update of an index decodes
	// only the new bytes. The file must start with the prefix's bytes (the
	// caller checks that), and the bytes after it must start a frame or a
	// member of the format; otherwise it is an error.
	Extend func(path string, table []byte) (Source, error)
	// Walk, when set, opens the file at path as Open does, but as a
	// Walking source, which makes its table as it is read from front to
	// back, instead of before, as o says: for a format whose table takes
	// decoding the whole file (plain gzip), a build scans the file as the
	// walk decodes it, once.
	Walk func(path string, o WalkOptions) (Source, error)
	// OpenLike, when set, opens the file at path as Open does, walking it
	// anew, with the options of the walk that made table (a table of the
	// file as Tabled.Table gave it): a verify walks the file as its
	// index's build did. Without it, OpenLike is Open.
	OpenLike func(path string, table []byte) (Source, error)
}

// WalkOptions say how a backend walks a file to make its table.
type WalkOptions struct {
	// Span is the plain bytes between the checkpoints of a backend that
	// keeps checkpoints (plain gzip's), at least; 0 for its default.
	Span int64
}

// HeadLen is how many of a file's first bytes a Backend's Match sees: a
// BGZF member's header with its 'BC' subfield takes 18, a zstd frame's
// header at most 18 after a skippable frame's 8.
const HeadLen = 64

var (
	registerMu sync.Mutex                // serialises Register
	backends   atomic.Pointer[[]Backend] // the registered backends, in order; replaced whole, never changed
)

// Register adds b to the backends Open picks from, after those registered
// before it: Open uses the first whose Match accepts a file. It is meant
// for init functions, and safe to call at any time, concurrently with Open
// too. It panics when b lacks its Name, Match or Open, or when a backend
// of the same name is registered already.
func Register(b Backend) {
	if b.Name == "" || b.Match == nil || b.Open == nil {
		panic("source: Register of a backend without its Name, Match or Open")
	}
	registerMu.Lock()
	defer registerMu.Unlock()
	var next []Backend
	if old := backends.Load(); old != nil {
		next = append(next, *old...)
	}
	for _, r := range next {
		if r.Name == b.Name {
			panic("source: Register called twice for backend " + b.Name)
		}
	}
	next = append(next, b)
	backends.Store(&next)
}

// Backends returns the names of the registered backends, in the order Open
// tries them.
func Backends() []string {
	var names []string
	if bs := backends.Load(); bs != nil {
		for _, b := range *bs {
			names = append(names, b.Name)
		}
	}
	return names
}

// backendNamed returns the registered backend named name.
func backendNamed(name string) (Backend, bool) {
	if bs := backends.Load(); bs != nil {
		for _, b := range *bs {
			if b.Name == name {
				return b, true
			}
		}
	}
	return Backend{}, false
}

// backendFor returns the first registered backend whose Match accepts
// head, a compressed file's first bytes.
func backendFor(head []byte) (Backend, bool) {
	if bs := backends.Load(); bs != nil {
		for _, b := range *bs {
			if b.Match(head[:min(len(head), HeadLen)]) {
				return b, true
			}
		}
	}
	return Backend{}, false
}
