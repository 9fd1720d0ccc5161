package source

import (
	"context"
	"io"
	"os"

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

func (r rawSource) WillNeed(int64, int64) {}
