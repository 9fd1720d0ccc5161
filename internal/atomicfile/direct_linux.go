package atomicfile

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// create makes the file name exclusively, never through a symbolic link,
// with O_DIRECT if asked and the file system takes it.
func create(name string, direct bool, perm os.FileMode) (*os.File, bool, error) {
	const flags = os.O_RDWR | os.O_CREATE | os.O_EXCL | syscall.O_NOFOLLOW
	if direct {
		f, err := os.OpenFile(name, flags|syscall.O_DIRECT, perm)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, syscall.EINVAL) { // EINVAL: this file system has no direct I/O
			return nil, false, err
		}
	}
	f, err := os.OpenFile(name, flags, perm)
	return f, false, err
}

// refused reports whether a write failed because of direct I/O's rules.
func refused(err error) bool { return errors.Is(err, syscall.EINVAL) }

// undirect turns direct I/O off for the rest of the file's writes.
func (f *File) undirect() error {
	fd := int(f.Fd())
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags&^unix.O_DIRECT)
	}
	if err == nil {
		f.direct = false
	}
	return err
}
