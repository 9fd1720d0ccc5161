package index

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
)

// Errors that callers can tell apart with errors.Is. The errors returned
// wrap these with the file and what is wrong; an index that must be built
// again is a *RebuildError, a lock held by another writer a *LockedError.
var (
	// ErrNoIndex means the index file does not exist.
	ErrNoIndex = errors.New("no index")
	// ErrNotIndex means the file at the index path does not start with
	// the index magic: it is some other file.
	ErrNotIndex = format.ErrNotIndex
	// ErrVersion means the index was written in a format version this
	// code does not read.
	ErrVersion = format.ErrVersion
	// ErrCorrupt means a checksum, size or field of the index is wrong:
	// a bit flipped, the file was truncated or overwritten.
	ErrCorrupt = format.ErrCorrupt
	// ErrStale means the CSV changed in a way the index cannot follow:
	// it shrank or its first or last indexed bytes differ.
	ErrStale = errors.New("stale")
	// ErrChanged means the CSV or index shrank while being read.
	ErrChanged = source.ErrChanged
	// ErrColumn means the key column names no column of the CSV.
	ErrColumn = keyspec.ErrColumn
	// ErrKeyColumns means a key names more columns than an index's key
	// may have (scan.MaxKeyColumns), whether or not the CSV has them.
	ErrKeyColumns = keyspec.ErrKeyColumns
	// ErrAmbiguousColumn means the key column's name is the name of two
	// header fields.
	ErrAmbiguousColumn = keyspec.ErrAmbiguousColumn
	// ErrNoKeys means no row of the CSV has the key column: its number is
	// beyond every row's fields, or the delimiter is not the file's.
	ErrNoKeys = errors.New("no row has the key column")
)

// broken reports whether err says an index file cannot be used at all:
// it must be rebuilt.
func broken(err error) bool {
	return errors.Is(err, ErrNotIndex) || errors.Is(err, ErrVersion) || errors.Is(err, ErrCorrupt)
}

// RebuildError is the error for an index that cannot be used until it is
// built again: its main index is missing, or a file of it is broken (not an
// index, another format version, corrupt) or stale (the CSV shrank, or
// changed where it is indexed). It carries the facts, and the options of
// the build that makes the index again, so that each front end can word
// the fix in its own voice (a command line, a function call); Error words
// it neutrally. It unwraps to Err: errors.Is(err, ErrStale) and the like
// hold through it.
type RebuildError struct {
	// CSVPath is the CSV the index is of.
	CSVPath string
	// IndexPath is the file at fault: the main index, or its tail.
	IndexPath string
	// Update says that the file at fault is the tail, and stale: the tail
	// indexes the rows appended after the main index was built, and an
	// update, which rescans them, repairs the index without a rebuild.
	Update bool
	// Err says what is wrong, in one line that names the file, and wraps
	// ErrNoIndex, ErrNotIndex, ErrVersion, ErrCorrupt, ErrStale or
	// ErrChanged.
	Err error
	// Built is what the index was built with, from the file's header; nil
	// when there is no header to read (the index is missing, or its header
	// is broken).
	Built *Definition
}

// Key returns the key spec a build that makes the index again is given:
// KeyName, else the column numbers ("3", or "1,4" for a composite key).
func (d *Definition) Key() string {
	switch {
	case d.KeyName != "" && d.KeyColumns != nil:
		return d.KeyName // a record already
	case d.KeyName != "":
		return string(scan.AppendRecord(nil, [][]byte{[]byte(d.KeyName)}, ',')) // quoted if it holds a comma
	case d.KeyColumns != nil:
		return keyspec.Spec(d.KeyColumns)
	}
	return strconv.Itoa(d.KeyColumn)
}

// Definition is what an index was built with besides the CSV bytes: the
// key column and the dialect, which a build that makes it again is given.
type Definition struct {
	// KeyColumn is the key column, 0-based; for a composite key, its
	// first.
	KeyColumn int
	// KeyColumns are a composite key's columns, in its order; nil for a
	// key of one column.
	KeyColumns []int
	// KeyName is the key column's header field (for a composite key, its
	// columns' as one CSV record), when the CSV has a header and the field
	// is not empty; "" otherwise. A build given the name finds the column
	// by it.
	KeyName string
	// NoHeader says the CSV's first record is data, not a header.
	NoHeader bool
	// Delimiter is the byte between fields.
	Delimiter byte
}

// Facts returns what is wrong, without what to do about it: the message
// that a front end words its own fix after.
func (e *RebuildError) Facts() string { return e.Err.Error() }

// Error returns the facts and, in neutral words, the fix.
func (e *RebuildError) Error() string {
	switch {
	case errors.Is(e.Err, ErrNoIndex):
		return e.Facts() + "; build the index"
	case e.Update:
		return e.Facts() + "; rebuild the index (the tail indexes rows appended after the main index; an update rescans them)"
	}
	return e.Facts() + "; rebuild the index"
}

// Unwrap returns Err.
func (e *RebuildError) Unwrap() error { return e.Err }

// mustRebuild returns the RebuildError for the index file at idxPath, of
// the CSV at csvPath, whose header h (nil when unknown) says how it was
// built, and which err says is wrong.
func mustRebuild(csvPath, idxPath string, h *format.Header, err error) *RebuildError {
	e := &RebuildError{CSVPath: csvPath, IndexPath: idxPath, Err: err}
	if h != nil {
		e.Built = definitionOf(h)
	}
	return e
}

// definitionOf returns what the index whose header is h was built with.
func definitionOf(h *format.Header) *Definition {
	d := &Definition{KeyColumn: int(h.KeyCol), KeyColumns: h.CompositeColumns(), NoHeader: h.Flags&format.FlagHeader == 0, Delimiter: h.Delim}
	if !d.NoHeader {
		d.KeyName = string(h.KeyName)
	}
	return d
}

// KeyDefinition returns the key of cols as a build is given it: by the
// header fields of those columns when each has one (fields), else by
// number.
func KeyDefinition(cols []int, fields [][]byte) *Definition {
	d := &Definition{KeyColumn: cols[0], KeyName: string(keyspec.Name(cols, fields, format.MaxKeyName))}
	if len(cols) > 1 {
		d.KeyColumns = cols
	}
	return d
}

// namePath makes *err, when set, say which CSV it is about: every error of
// the package's entry points names a file of the index, once. An error that
// names the CSV or the index (indexPath, or CSV.csvidx when empty) already
// is left as it is, and so is a cancellation, which is about no file.
func namePath(err *error, csvPath, indexPath string) {
	if indexPath == "" {
		indexPath = DefaultIndexPath(csvPath)
	}
	e := *err
	if e == nil || errors.Is(e, context.Canceled) {
		return
	}
	if msg := e.Error(); !strings.Contains(msg, csvPath) && !strings.Contains(msg, indexPath) {
		*err = &pathError{path: csvPath, err: e}
	}
}

// pathError is an error of an entry point, prefixed with its CSV's path.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// The options a message advises are named as this package's option structs
// name them, in parentheses: a front end gives its own names for them (a
// flag, a keyword argument) by replacing these.
const (
	OptIndexPath = "(IndexPath)" // BuildOptions.IndexPath and the like: where the index goes
	OptIndexDir  = "(IndexDir)"  // BuildOptions.IndexDir and the like: the index directory
)

// Reword returns err's message with the neutral fixes the package words
// replaced by a front end's own: rebuild's for a *RebuildError in err's
// chain, locked's for a *LockedError. A wrapped error's message is part of
// its wrapper's, so each fix is replaced where the package put it.
func Reword(err error, rebuild func(*RebuildError) string, locked func(*LockedError) string) string {
	msg := err.Error()
	var re *RebuildError
	if errors.As(err, &re) {
		msg = strings.Replace(msg, re.Error(), rebuild(re), 1)
	}
	var le *LockedError
	if errors.As(err, &le) {
		msg = strings.Replace(msg, le.Error(), locked(le), 1)
	}
	return msg
}
