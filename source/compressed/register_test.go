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
// source.Open reads what bgzip, zstd, pzstd, gzip and pigz write (whatever
// the file's name) as a Source of the plain bytes, through the backend of
// its format (bgzip's gzip by the bgzf backend); xz stays a
// *source.CompressedError; source.Check accepts the files the backends
// read.
func TestRegistered(t *testing.T) {
	if got := source.Backends(); !slices.Equal(got, []string{"bgzf", "zstd", "gzip"}) {
		t.Fatalf("source.Backends() = %v", got)
	}
	data := csvText(8000, 7)
	for _, c := range []struct {
		name    string
		backend string
		path    func(t *testing.T) string
	}{
		{"BGZF", "bgzf", func(t *testing.T) string { return bgzipFile(t, data) }},
		{"BGZFNamedCSV", "bgzf", func(t *testing.T) string {
			p := bgzipFile(t, data)
			csv := filepath.Join(filepath.Dir(p), "named.csv")
			if err := os.Rename(p, csv); err != nil {
				t.Fatal(err)
			}
			return csv
		}},
		{"Zstd", "zstd", func(t *testing.T) string { return zstdFile(t, data, "zstd", `zstd -q -c "$IN" > "$OUT"`) }},
		{"Pzstd", "zstd", func(t *testing.T) string { return zstdFile(t, data, "pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`) }},
		{"Gzip", "gzip", func(t *testing.T) string { return gzipFile(t, data, "gzip", `gzip -c "$IN" > "$OUT"`) }},
		{"Pigz", "gzip", func(t *testing.T) string { return gzipFile(t, data, "pigz", `pigz -p 2 -c "$IN" > "$OUT"`) }},
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
			if tb, ok := src.(source.Tabled); !ok || tb.Backend() != c.backend || src.Name() != p || src.Size() != int64(len(data)) {
				t.Fatalf("source.Open = %T, name %q, size %d; want a source.Tabled of %s, of %d bytes", src, src.Name(), src.Size(), c.backend, len(data))
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
	for _, c := range []struct{ tool, format, suffix string }{{"xz", "xz", ".xz"}} {
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

// TestIsBGZFAgrees: the backends tell BGZF from plain gzip as IsBGZF does:
// with a byte of bgzip's first header changed, a file whose first
// source.HeadLen bytes IsBGZF accepts goes to the BGZF backend, and one it
// refuses, if still gzip, to the gzip backend (whose Match takes exactly
// the gzip that IsBGZF refuses), which reads it (BGZF is gzip) or finds
// it damaged; never a *source.CompressedError. (Package source's own tests
// check that its isBGZF, for the messages of a program that links no
// decoder, says BGZF for bgzip's header.)
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
			var backend string
			if tb, ok := src.(source.Tabled); ok {
				backend = tb.Backend()
			}
			if src != nil {
				src.Close()
			}
			var ce *CorruptError
			head := changed[:source.HeadLen] // what the backends see
			switch {
			case IsBGZF(head) && backend != "bgzf" && !errors.As(err, &ce):
				t.Errorf("byte %d = %#x: IsBGZF, but source.Open = %q, %v", at, b, backend, err)
			case !IsBGZF(head) && source.Compression(head) == "gzip" && backend != "gzip" && !errors.As(err, &ce):
				t.Errorf("byte %d = %#x: not BGZF, but source.Open = %q, %v", at, b, backend, err)
			case source.Compression(head) == "gzip" && IsBGZF(head) == isGzip(head):
				t.Errorf("byte %d = %#x: IsBGZF %v, isGzip %v", at, b, IsBGZF(head), isGzip(head))
			}
		}
	}
}
