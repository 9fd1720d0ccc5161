package multifile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/source"
)

// A manifest and its parts table may be at URLs, read through package
// source's openers: those the remote build registers (in the other builds,
// source.Open says to run it). Its index files are opened by
// Options.OpenIndex there. A file read whole so is at most maxWholeRead
// bytes.

// maxWholeRead is the most bytes of a manifest, or of a parts table at a
// URL, read whole: a table of a million files of names of 20 bytes.
const maxWholeRead = 128 << 20

// readFile returns the bytes of the file at path, or at its URL.
func readFile(path string) ([]byte, error) {
	if !isURL(path) {
		return os.ReadFile(path)
	}
	src, err := source.Open(path, mapping.Random)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return readWhole(src)
}

// readWhole returns the bytes of src, of at most maxWholeRead.
func readWhole(src source.Source) ([]byte, error) {
	if src.Size() > maxWholeRead {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a manifest or a parts table may hold", src.Name(), src.Size(), maxWholeRead)
	}
	b := make([]byte, src.Size())
	if _, err := src.ReadAt(context.Background(), b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// tableFile is what a parts table is read from: a local file, or the
// bytes of one at a URL, read whole (one request, where each entry read
// would cost a round trip).
type tableFile interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// openTableFile opens the parts table at path, or at its URL.
func openTableFile(path string) (tableFile, error) {
	if !isURL(path) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return localTable{f}, nil
	}
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return bytesTable{bytes.NewReader(b)}, nil
}

type localTable struct{ *os.File }

func (f localTable) Size() int64 {
	st, err := f.Stat()
	if err != nil {
		return -1 // no table's size: openTable says it is damaged
	}
	return st.Size()
}

type bytesTable struct{ *bytes.Reader }

func (bytesTable) Close() error { return nil }
