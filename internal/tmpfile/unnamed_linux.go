package tmpfile

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// errNoUnnamed means the system or the file system cannot make unnamed files.
var errNoUnnamed = errors.New("no unnamed files here")

// noFollow makes an open fail on a symbolic link.
const noFollow = unix.O_NOFOLLOW

// openUnnamed opens an unnamed file in dir (O_TMPFILE) with mode 0600: the kernel
// deletes it when its last descriptor closes. It returns errNoUnnamed where the
// file system does not support it.
func openUnnamed(dir string) (*os.File, error) {
	for {
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EOPNOTSUPP || err == unix.EISDIR:
			// EISDIR: a kernel older than O_TMPFILE took it for O_DIRECTORY
			return nil, errNoUnnamed
		case err != nil:
			return nil, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		// Named for errors, which then name the directory it is in.
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed spill file)")), nil
	}
}
