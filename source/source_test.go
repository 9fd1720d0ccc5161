package source

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/mapping"
)

// TestOpen: a plain CSV opens as a Mapped source of its bytes; compressed
// data, whatever the name, is a *CompressedError and leaves no source
// open; a URL that names no local file, a directory and a missing file are
// OpenInput's errors.
func TestOpen(t *testing.T) {
	const data = "k,v\n1,a\n"
	p := writeFile(t, data)
	src, err := Open(p, mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := src.(Mapped)
	if !ok || string(m.Bytes()) != data || src.Size() != int64(len(data)) || src.Name() != p {
		t.Fatalf("Open(plain) = %T %q size %d name %q", src, m.Bytes(), src.Size(), src.Name())
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ name, data, format string }{
		{"a.csv", "\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC", "gzip"},
		{"b.csv.zst", "\x28\xb5\x2f\xfd\x24\x0d", "zstd"},
		{"c.zip", "PK\x03\x04\x14\x00", "zip"},
	} {
		gz := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(gz, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		var ce *CompressedError
		if src, err := Open(gz, mapping.Random); !errors.As(err, &ce) || ce.Format != c.format || ce.Path != gz || src != nil {
			t.Errorf("Open(%s) = %v, %v; want a *CompressedError of %s, %s", c.name, src, err, gz, c.format)
		}
	}
	if _, err := Open("https://example.com/x.csv", mapping.Random); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "it is a URL") {
		t.Errorf("Open(a URL) = %v", err)
	}
	if _, err := Open(filepath.Dir(p), mapping.Random); !errors.Is(err, mapping.ErrNotRegular) {
		t.Errorf("Open(a directory) = %v", err)
	}
	if _, err := Open(filepath.Join(filepath.Dir(p), "nope.csv"), mapping.Random); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(a missing file) = %v", err)
	}
}

// TestOpenEmpty: an empty file is a plain source of no bytes.
func TestOpenEmpty(t *testing.T) {
	src, err := Open(writeFile(t, ""), mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Size() != 0 || len(src.(Mapped).Bytes()) != 0 {
		t.Fatalf("empty file: size %d", src.Size())
	}
	if got := src.Splits(10); !slices.Equal(got, []int64{0}) {
		t.Errorf("Splits of an empty file = %v, want [0]", got)
	}
}

// TestStat: a regular file's stat; a directory and a missing file are
// OpenInput's errors.
func TestStat(t *testing.T) {
	p := writeFile(t, "k\n1\n")
	if st, err := Stat(p); err != nil || st.Size() != 4 || !st.Mode().IsRegular() {
		t.Fatalf("Stat(a file) = %v, %v", st, err)
	}
	if _, err := Stat(filepath.Dir(p)); !errors.Is(err, mapping.ErrNotRegular) || !strings.Contains(err.Error(), "give the path of a CSV file") {
		t.Errorf("Stat(a directory) = %v", err)
	}
	if _, err := Stat(p + ".nope"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(a missing file) = %v", err)
	}
}

// TestSplits: cut points target bytes apart from 0, all inside the file;
// a target below one byte is one byte.
func TestSplits(t *testing.T) {
	f, err := OpenFile(writeFile(t, "0123456789"), mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		target int64
		want   []int64
	}{
		{4, []int64{0, 4, 8}},
		{5, []int64{0, 5}},
		{10, []int64{0}},
		{100, []int64{0}},
		{0, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	} {
		if got := f.Splits(c.target); !slices.Equal(got, c.want) {
			t.Errorf("Splits(%d) = %v, want %v", c.target, got, c.want)
		}
	}
}

// TestReaderAt: the adapter reads through the source, io.EOF past its end,
// and passes the context to the source.
func TestReaderAt(t *testing.T) {
	f, err := OpenFile(writeFile(t, "k,v\n1,a\n"), mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := ReaderAt(context.Background(), f)
	buf := make([]byte, 4)
	if n, err := r.ReadAt(buf, 4); n != 4 || err != nil || string(buf) != "1,a\n" {
		t.Fatalf("ReadAt(4) = %d, %v, %q", n, err, buf)
	}
	if n, err := r.ReadAt(buf, 6); n != 2 || err != io.EOF {
		t.Fatalf("ReadAt(6) = %d, %v; want 2, io.EOF", n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cs := ctxSource{f}
	if _, err := ReaderAt(ctx, cs).ReadAt(buf, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAt with a cancelled context = %v, want context.Canceled", err)
	}
}

// ctxSource is a Source whose reads fail once their context is done, as a
// remote one's do.
type ctxSource struct{ *File }

func (s ctxSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.File.ReadAt(ctx, p, off)
}
