package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/csvidx/csvidx/source"
)

// TestBuildCompressed: a build of compressed data no backend reads (xz) is
// a *source.CompressedError naming the file, whatever its name, and writes no index.
func TestBuildCompressed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(p, []byte("\xfd7zXZ\x00\x00\x04\xe6\xd6\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), p, &BuildOptions{Key: "0", NoHeader: true})
	var ce *source.CompressedError
	if !errors.As(err, &ce) || ce.Path != p || ce.Format != "xz" {
		t.Fatalf("build: %v, want a *source.CompressedError of %s, xz", err, p)
	}
	if _, err := os.Stat(p + ".csvidx"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an index was written: %v", err)
	}
	if _, err := Open(p, nil); !errors.As(err, &ce) {
		t.Errorf("open: %v, want a *source.CompressedError", err)
	}
}
