package source

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/csvidx/csvidx/internal/mapping"
)

// A Raw is a file's own bytes, as they are stored: what a backend decodes
// into a CSV's plain bytes. A local regular file is one, and so is a
// remote object a registered opener reads (see OpenRaw). Its methods are
// safe for concurrent use, but Close.
type Raw interface {
	io.ReaderAt
	// Name returns the path or URL the file was opened by.
	Name() string
	// Size returns the file's size as of opening.
	Size() int64
	// Identity returns what tells this version of the file from another,
	// as of opening.
	Identity() Identity
	// Current returns the file's identity now.
	Current() (Identity, error)
	// WillNeed says that the bytes [off, off+n) are to be read, front to
	// back: a local file's are read ahead by the kernel.
	WillNeed(off, n int64)
	// Close releases the file.
	Close() error
}

// OpenRaw opens the file at name for a backend to decode: a local regular
// file (as OpenInput opens it), or, for a URL that names no local file and
// that a registered opener reads, the remote object (see RegisterOpener).
func OpenRaw(name string) (Raw, error) {
	f, st, err := OpenInput(name)
	if err == nil {
		return &rawFile{f: f, name: name, id: IdentityOf(st)}, nil
	}
	if Remote(name) {
		if src := taken(name); src != nil {
			return rawSource{src}, nil
		}
		open, _ := openerFor(name)
		src, err := open(name)
		if err != nil {
			return nil, err
		}
		return rawSource{src}, nil
	}
	return nil, err
}

// rawFile is a local file's Raw.
type rawFile struct {
	f    *os.File
	name string
	id   Identity
}

func (r *rawFile) ReadAt(p []byte, off int64) (int, error) { return r.f.ReadAt(p, off) }
func (r *rawFile) Name() string                            { return r.name }
func (r *rawFile) Size() int64                             { return r.id.Size }
func (r *rawFile) Identity() Identity                      { return r.id }
func (r *rawFile) WillNeed(off, n int64)                   { mapping.WillNeedFile(r.name, n, off) }
func (r *rawFile) Close() error                            { return r.f.Close() }

func (r *rawFile) Current() (Identity, error) {
	st, err := r.f.Stat()
	if err != nil {
		return Identity{}, err
	}
	return IdentityOf(st), nil
}

// rawSource is the Raw of a remote object, a Source of its bytes as they
// are stored.
type rawSource struct{ Source }

func (r rawSource) ReadAt(p []byte, off int64) (int, error) {
	return r.Source.ReadAt(context.Background(), p, off)
}

// WillNeed tells a remote object that supports it (remote.Source) that it
// is to be read front to back.
func (r rawSource) WillNeed(int64, int64) {
	if s, ok := r.Source.(interface{ Sequential() }); ok {
		s.Sequential()
	}
}

// PrefetchRaw asks a remote object that supports it to read the ranges
// of ranges ({offset, length} each) at once, for the reads to come.
func (r rawSource) PrefetchRaw(ranges [][2]int64) {
	if s, ok := r.Source.(interface{ PrefetchRaw([][2]int64) }); ok {
		s.PrefetchRaw(ranges)
	}
}

// A RawPrefetcher is a Raw that can read ranges of it at once, cheaper
// than one by one: a remote object, in one round trip.
type RawPrefetcher interface {
	PrefetchRaw(ranges [][2]int64)
}

// handedOff are remote objects opened already, by URL, for the next OpenRaw
// of their URL to take (see HandOff).
var handedOff sync.Map

// HandOff gives src, the remote object at url opened already (with bytes
// read: its ends, which an index's freshness check reads), to the next
// OpenRaw of url, which takes it instead of opening the object again: a
// backend opened by name reads it. A source handed off before for url and
// not taken is closed.
func HandOff(url string, src Source) {
	if old, loaded := handedOff.Swap(url, src); loaded {
		old.(Source).Close()
	}
}

// Take closes the source handed off for url, if no OpenRaw took it.
func Take(url string) {
	if src := taken(url); src != nil {
		src.Close()
	}
}

// taken returns the source handed off for url, and forgets it; nil when
// there is none.
func taken(url string) Source {
	if v, ok := handedOff.LoadAndDelete(url); ok {
		return v.(Source)
	}
	return nil
}
