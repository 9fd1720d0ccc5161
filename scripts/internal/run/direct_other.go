//go:build !linux

package run

import "os"

// openDirect opens path for reading; direct I/O is only asked for on Linux.
func openDirect(path string) (*os.File, error) { return os.Open(path) }

// setDirect leaves f as it is: direct I/O is only asked for on Linux.
func setDirect(*os.File) error { return nil }
