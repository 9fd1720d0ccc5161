package compressed

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source"
)

// TestRegistered: importing the package registers its backends, and
// source.Open reads what bgzip, zstd and pzstd write (whatever the file's
// name) as a Source of the plain bytes; a gzip file that is not BGZF, and
// xz, stay *source.CompressedErrors; source.Check accepts the files the
// backends read.
func TestRegistered(t *testing.T) {
	if got := source.Backends(); !slices.Equal(got, []string{"bgzf", "zstd"}) {
		t.Fatalf("source.Backends() = %v", got)
	}
	data := csvText(8000, 7)
	for _, c := range []struct {
		name string
		path func(t *testing.T) string
	}{
		{"BGZF", func(t *testing.T) string { return bgzipFile(t, data) }},
		{"BGZFNamedCSV", func(t *testing.T) string {
			p := bgzipFile(t, data)
			csv := filepath.Join(filepath.Dir(p), "named.csv")
			if err := os.Rename(p, csv); err != nil {
				t.Fatal(err)
			}
			return csv
		}},
		{"Zstd", func(t *testing.T) string { return zstdFile(t, data, "zstd", `zstd -q -c "$IN" > "$OUT"`) }},
		{"Pzstd", func(t *testing.T) string { return zstdFile(t, data, "pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.path(t)
			if err := source.Check(p); err != nil {
				t.Errorf("source.Check = %v", err)
			}
			src, err := source.Open(p, mapping.Random)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if _, ok := src.(*Framed); !ok || src.Name() != p || src.Size() != int64(len(data)) {
				t.Fatalf("source.Open = %T, name %q, size %d; want a *Framed of %d bytes", src, src.Name(), src.Size(), len(data))
			}
			got, err := io.ReadAll(io.NewSectionReader(source.ReaderAt(context.Background(), src), 0, src.Size()))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("the plain bytes: %v, equal %v", err, bytes.Equal(got, data))
			}
		})
	}

	dir := t.TempDir()
	plain := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, format, suffix string }{{"gzip", "gzip", ".gz"}, {"xz", "xz", ".xz"}} {
		tooltest.Need(t, c.tool)
		if out, err := exec.Command(c.tool, "-k", "-f", plain).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", c.tool, err, out)
		}
		p := plain + c.suffix
		var ce *source.CompressedError
		if src, err := source.Open(p, mapping.Random); !errors.As(err, &ce) || ce.Format != c.format || ce.BGZF || src != nil {
			t.Errorf("source.Open(%s) = %v, %v; want a *source.CompressedError", c.tool, src, err)
		}
		if err := source.Check(p); !errors.As(err, &ce) {
			t.Errorf("source.Check(%s) = %v; want a *source.CompressedError", c.tool, err)
		}
	}
}

// TestIsBGZFAgrees: package source tells BGZF from plain gzip as IsBGZF
// does, without a decoder (for the messages of a program that links none):
// with a byte of bgzip's first header changed, a file whose first
// source.HeadLen bytes IsBGZF accepts goes to the BGZF backend, and one it
// refuses, if still gzip, is a *source.CompressedError that does not say
// BGZF. (Package source's own tests check that it says BGZF for bgzip's
// header.)
func TestIsBGZFAgrees(t *testing.T) {
	dir := t.TempDir()
	comp, err := os.ReadFile(bgzipFile(t, csvText(100, 8)))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "changed.gz")
	for at := range 18 {
		for _, b := range []byte{0, 1, 2, 4, 6, 0x1b, 'B', 'C', 0xff} {
			changed := bytes.Clone(comp)
			changed[at] = b
			if err := os.WriteFile(p, changed, 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := source.Open(p, mapping.Random)
			if src != nil {
				src.Close()
			}
			var ce *source.CompressedError
			isCE := errors.As(err, &ce)
			head := changed[:source.HeadLen] // what the backends see
			switch {
			case IsBGZF(head) && isCE:
				t.Errorf("byte %d = %#x: IsBGZF, but source.Open = %v", at, b, err)
			case !IsBGZF(head) && source.Compression(head) == "gzip" && (!isCE || ce.BGZF):
				t.Errorf("byte %d = %#x: not BGZF, but source.Open = %v (%+v)", at, b, err, ce)
			}
		}
	}
}
