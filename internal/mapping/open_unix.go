//go:build unix

package mapping

import (
	"os"

	"golang.org/x/sys/unix"
)

// Open opens the file at path for reading, as os.Open does, but without
// registering it with Go's network poller: a regular file never blocks, and
// the registration (creating the poller, switching each file to
// non-blocking mode, being refused by epoll, switching back) cost a lookup
// process ten of its 230 system calls (strace -c). Like os.Open, it retries
// an open interrupted by a signal.
func Open(path string) (*os.File, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
