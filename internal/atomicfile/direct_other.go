//go:build !linux

package atomicfile

import "os"

// create makes the file name exclusively (O_EXCL never follows a symbolic
// link); direct I/O is only used on Linux.
func create(name string, _ bool, perm os.FileMode) (*os.File, bool, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	return f, false, err
}

func refused(error) bool { return false }

func (f *File) undirect() error { return nil }
