package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/csvidx/csvidx/internal/mapping"
)

// OpenInput opens the CSV at path, which must be a regular file: csvidx
// maps it and reads it at random, which a pipe or a device cannot give.
func OpenInput(path string) (*os.File, fs.FileInfo, error) {
	f, st, err := mapping.Open(path)
	if errors.Is(err, fs.ErrNotExist) && IsURL(path) {
		err = &URLError{Path: path, Err: err}
	}
	if errors.Is(err, mapping.ErrNotRegular) {
		if dir, serr := os.Stat(path); serr == nil && dir.IsDir() {
			err = fmt.Errorf("%w: give the path of a CSV file", err)
		} else {
			err = fmt.Errorf("%w: csvidx needs random access to the CSV; write the data to a file first", err)
		}
	}
	return f, st, err
}

// OpenStream opens the file at path to be read once from its start, as
// join reads LEFT: any file that can be read, a FIFO or a device too, with
// OpenInput's words for a URL that names no local file.
func OpenStream(path string) (*os.File, error) {
	f, err := os.Open(path)
	return f, urlHint(err, path)
}

// urlHint adds to err, an error opening path, that path is a URL when it
// is one and no local file has that name.
func urlHint(err error, path string) error {
	if errors.Is(err, fs.ErrNotExist) && IsURL(path) {
		return fmt.Errorf("%w: %s", err, urlAdvice)
	}
	return err
}

// urlAdvice is what an error says of a URL that names no local file.
const urlAdvice = "it is a URL, and csvidx reads local files; download it first"

// A URLError is the error of opening a CSV, to read it at random, at a URL
// that names no local file, in a program that reads no URL of its scheme:
// a program that has another build that reads it (csvidx, whose remote
// build does) can tell it from other errors, wherever the CSV is opened
// (a file of many, found late).
type URLError struct {
	Path string
	Err  error // the error of opening Path as a local file
}

func (e *URLError) Error() string { return fmt.Sprintf("%v: %s", e.Err, urlAdvice) }
func (e *URLError) Unwrap() error { return e.Err }

// IsURL reports whether path begins as a URL does, with a scheme and "://"
// ("s3://", "https://"): the words of a user who expects a remote file to
// be read, when no local file has that name.
func IsURL(path string) bool {
	scheme, _, ok := strings.Cut(path, "://")
	if !ok || scheme == "" {
		return false
	}
	for i, c := range scheme { // RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// Check returns what stops the CSV at path from having an index at
// all (it cannot be opened, it is not a regular file, it is compressed in
// a format no registered backend reads), or nil. Readers call it when they
// find no index, so that the error is about the CSV, not an index to
// build, which would not work either. A compressed file that a backend
// reads is told by its first bytes, without opening the backend (which
// may read the whole file's frames). A URL that a registered opener reads
// is not asked about: it is nil.
func Check(path string) error {
	if Remote(path) {
		return nil // an object, which only a request would tell about
	}
	f, err := OpenFile(path, mapping.Random)
	if err != nil {
		return err
	}
	head, err := f.checkPlain()
	if _, ok := backendFor(head); ok {
		err = nil
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
