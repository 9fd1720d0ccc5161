//go:build unix

package mapping

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenNotRegular: a FIFO without a writer, a directory and a device are
// errors at once, never a hang, and say what they are.
func TestOpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, c := range []struct{ path, kind string }{
		{fifo, "a FIFO (named pipe)"},
		{dir, "a directory"},
		{"/dev/zero", "a character device"}, // opened for reading only: harmless
	} {
		done := make(chan error, 1)
		go func() {
			_, _, err := Open(c.path)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || err.Error() != c.path+" is "+c.kind+", not a regular file" {
				t.Errorf("Open(%s) = %v, want ErrNotRegular naming %s", c.path, err, c.kind)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) hangs", c.path)
		}
	}
}
