//go:build unix

package index

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

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
