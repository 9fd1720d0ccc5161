package index

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// openLock opens the lock file at path, creating it if it is absent, after
// checking that it is not a symbolic link. Windows locks need a handle with
// read or write access; read is enough.
func openLock(path string, perm fs.FileMode) (*os.File, error) {
	if err := refuseLink(path); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDONLY|os.O_CREATE, perm)
}

// openNoFollow opens the file at path for reading, after checking that it
// is not a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	if err := refuseLink(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// refuseLink returns an error wrapping ELOOP, as O_NOFOLLOW gives on Unix,
// if path is a symbolic link.
func refuseLink(path string) error {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return &os.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return nil
}

// flock takes an exclusive lock on the first byte of f with LockFileEx,
// which Windows enforces between processes.
func flock(f *os.File, noWait bool) error {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if noWait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrLocked
	}
	return err
}
