//go:build !linux

package atomicfile

import "os"

// create makes the file name exclusively; direct I/O is only used on Linux.
func create(name string, _ bool) (*os.File, bool, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	return f, false, err
}

func refused(error) bool { return false }

func (f *File) undirect() error { return nil }
