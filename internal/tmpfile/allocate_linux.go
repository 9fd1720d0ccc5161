package tmpfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// Allocate makes f size bytes long, with its blocks allocated on disk: a
// full disk is an error now rather than a fault later, when a mapping of f
// is written.
func Allocate(f *os.File, size int64) error {
	for {
		err := unix.Fallocate(int(f.Fd()), 0, 0, size)
		switch err {
		case unix.EINTR:
			continue
		case unix.EOPNOTSUPP:
			return f.Truncate(size) // a file system without fallocate: sparse
		case nil:
			return nil
		}
		return &os.PathError{Op: "fallocate", Path: f.Name(), Err: err}
	}
}
