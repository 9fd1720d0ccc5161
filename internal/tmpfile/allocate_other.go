//go:build !linux

package tmpfile

import "os"

// Allocate makes f size bytes long (sparse where the system has no
// fallocate: a full disk may then show only when the bytes are written).
func Allocate(f *os.File, size int64) error { return f.Truncate(size) }
