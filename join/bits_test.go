package join

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// TestJoinBitsFile: past the memory limit, the bitmap lives in a
// temporary file that has no name (nothing is left in its directory), and
// a directory it cannot be made in is an error before any row is written.
func TestJoinBitsFile(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	dir := t.TempDir()
	j, err := New(strings.NewReader("k\n2\n"), rp, &Options{Mode: Full, Key: "k", Resources: index.Resources{MemLimit: 1, TmpDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := j.Run(context.Background(), &out); err != nil || out.String() != "k,k,v\n2,2,b\n,1,a\n" {
		t.Fatalf("%q, %v", out.String(), err)
	}
	j.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d files left in the bitmap's directory", len(entries))
	}
	missing := filepath.Join(dir, "nope")
	j, err = New(strings.NewReader("k\n2\n"), rp, &Options{Mode: Right, Key: "k", Resources: index.Resources{MemLimit: 1, TmpDir: missing}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	out.Reset()
	if _, err := j.Run(context.Background(), &out); err == nil || !strings.Contains(err.Error(), missing) || out.Len() > 0 {
		t.Fatalf("a bitmap in a missing directory: %q, %v; want an error naming it, and no output", out.String(), err)
	}
}
