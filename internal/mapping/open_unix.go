//go:build unix

package mapping

import (
	"os"

	"golang.org/x/sys/unix"
)

// Open opens the file at path for reading, as os.Open does, but without
// registering it with Go's network poller: a regular file never blocks, and
// os.Open's registration costs a lookup process fifteen system calls for
// the three files it opens (creating the poller, switching each file to
// non-blocking mode, being refused by epoll, switching back).
func Open(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
