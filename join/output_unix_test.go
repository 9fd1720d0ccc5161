//go:build unix

package join

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// TestCheckOutputFIFO: a FIFO is never an input of the join, not even the
// one LEFT is read from: only a regular file can be (a pipe read and
// written by others is theirs to order, as a terminal is).
func TestCheckOutputFIFO(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	// LEFT is the FIFO: its reader opens without waiting for a writer, and
	// reads what the writer wrote, then the end.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("k\n1\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	j, err := New(r, rp, &Options{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	st, err := os.Stat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.CheckOutput(st); err != nil {
		t.Errorf("CheckOutput(the FIFO LEFT is) = %v, want nil", err)
	}
	var out strings.Builder
	if _, err := j.Run(context.Background(), &out); err != nil || out.String() != "k,k,v\n1,1,a\n" {
		t.Fatalf("Run with LEFT from a FIFO: %q, %v", out.String(), err)
	}
}
