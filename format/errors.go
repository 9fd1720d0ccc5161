package format

import "errors"

// Errors that callers can tell apart with errors.Is; package format returns
// them as its own (index.ErrCorrupt is ErrCorrupt).
var (
	// ErrNotIndex means the file at the index path does not start with
	// the index magic: it is some other file.
	ErrNotIndex = errors.New("not a csvidx index")
	// ErrVersion means the index was written in a format version this
	// code does not read.
	ErrVersion = errors.New("unsupported index version")
	// ErrCorrupt means a checksum, size or field of the index is wrong:
	// a bit flipped, the file was truncated or overwritten.
	ErrCorrupt = errors.New("corrupt")
)
