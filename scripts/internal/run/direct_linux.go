package run

import (
	"errors"
	"os"
	"syscall"
)

// openDirect opens path for reading with direct I/O (O_DIRECT), or without
// it where the file system does not take it.
func openDirect(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECT, 0)
	if errors.Is(err, syscall.EINVAL) {
		return os.Open(path)
	}
	return f, err
}
