package run

import (
	"os"
	"syscall"
)

// openDirect opens path for reading with direct I/O (O_DIRECT).
func openDirect(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECT, 0)
}
