//go:build unix

package index

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openLock opens the lock file at path read-only, creating it (with the
// permission bits perm, less the umask) if it is absent, never through a
// symbolic link (ELOOP) and never blocking on a FIFO. flock needs no more
// than a read-only descriptor: a user who may read the lock file can take
// the lock.
func openLock(path string, perm fs.FileMode) (*os.File, error) {
	return open(path, unix.O_RDONLY|unix.O_CREAT, perm)
}

// openNoFollow opens the file at path for reading, never through a
// symbolic link and never blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return open(path, unix.O_RDONLY, 0)
}

// open opens path with flags and O_NOFOLLOW, O_NONBLOCK, O_NOCTTY and
// O_CLOEXEC, then clears O_NONBLOCK (see mapping.Open).
func open(path string, flags int, perm fs.FileMode) (*os.File, error) {
	for {
		fd, err := unix.Open(path, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, uint32(perm.Perm()))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// flock takes an exclusive advisory lock on f.
func flock(f *os.File, noWait bool) error {
	how := unix.LOCK_EX
	if noWait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrLocked
		}
		return err
	}
}
