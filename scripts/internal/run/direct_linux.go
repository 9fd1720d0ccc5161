package run

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openDirect opens path for reading with direct I/O (O_DIRECT).
func openDirect(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECT, 0)
}

// setDirect turns on direct I/O (O_DIRECT) for f; EINVAL where the file
// system has none.
func setDirect(f *os.File) error {
	fd := int(f.Fd())
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags|unix.O_DIRECT)
	return err
}
