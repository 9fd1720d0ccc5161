//go:build unix

package mapping

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Open opens the regular file at path for reading and returns it with its
// stat; any other kind of file is an error wrapping ErrNotRegular.
//
// It opens as os.Open does, but without registering the file with Go's
// network poller: a regular file never blocks, and the registration
// (creating the poller, switching each file to non-blocking mode, being
// refused by epoll, switching back) cost a lookup process ten of its 230
// system calls (strace -c). Like os.Open, it retries an open interrupted by
// a signal. The open itself is non-blocking (O_NONBLOCK, and O_NOCTTY), so
// that a FIFO without a writer, or a terminal, cannot make it hang; the
// flag is cleared before the file is handed to package os, which would
// otherwise register it.
func Open(path string) (*os.File, fs.FileInfo, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return regular(os.NewFile(uintptr(fd), path))
	}
}
