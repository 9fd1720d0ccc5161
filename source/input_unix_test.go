//go:build unix

package source

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/csvidx/csvidx/internal/mapping"
)

// TestOpenInputFIFO: a FIFO is mapping.ErrNotRegular, with the advice to
// write the data to a file first; opening it does not wait for a writer.
func TestOpenInputFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, _, err := OpenInput(fifo); !errors.Is(err, mapping.ErrNotRegular) || !strings.Contains(err.Error(), "random access") {
		t.Errorf("OpenInput(a FIFO) = %v", err)
	}
}
