package index

import "errors"

// Errors that callers can tell apart with errors.Is. The messages of the
// errors returned wrap these with the file, what is wrong and what to do.
var (
	// ErrNoIndex means the index file does not exist.
	ErrNoIndex = errors.New("no index")
	// ErrNotIndex means the file at the index path does not start with
	// the index magic: it is some other file.
	ErrNotIndex = errors.New("not a csvidx index")
	// ErrVersion means the index was written in a format version this
	// code does not read.
	ErrVersion = errors.New("unsupported index version")
	// ErrCorrupt means a checksum, size or field of the index is wrong:
	// a bit flipped, the file was truncated or overwritten.
	ErrCorrupt = errors.New("corrupt")
	// ErrStale means the CSV changed in a way the index cannot follow:
	// it shrank or its first or last indexed bytes differ.
	ErrStale = errors.New("stale")
	// ErrChanged means the CSV or index shrank while being read.
	ErrChanged = errors.New("file changed while being read")
	// ErrColumn means the key column names no column of the CSV.
	ErrColumn = errors.New("no such column")
	// ErrAmbiguousColumn means the key column's name is the name of two
	// header fields.
	ErrAmbiguousColumn = errors.New("ambiguous key column")
	// ErrNoKeys means no row of the CSV has the key column: its number is
	// beyond every row's fields, or the delimiter is not the file's.
	ErrNoKeys = errors.New("no row has the key column")
)

// broken reports whether err says an index file cannot be used at all:
// it must be rebuilt.
func broken(err error) bool {
	return errors.Is(err, ErrNotIndex) || errors.Is(err, ErrVersion) || errors.Is(err, ErrCorrupt)
}
