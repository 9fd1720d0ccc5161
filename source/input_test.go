package source

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/mapping"
)

// TestOpenInput: a regular file opens; a directory is
// mapping.ErrNotRegular, with the fix that fits it (a FIFO: see
// input_unix_test.go); a missing file is fs.ErrNotExist.
func TestOpenInput(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(csv, []byte("k\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, st, err := OpenInput(csv)
	if err != nil || st.Size() != 4 {
		t.Fatalf("OpenInput(a regular file) = %v, %v", st, err)
	}
	f.Close()
	if _, _, err := OpenInput(dir); !errors.Is(err, mapping.ErrNotRegular) || !strings.Contains(err.Error(), "give the path of a CSV file") {
		t.Errorf("OpenInput(a directory) = %v", err)
	}
	if _, _, err := OpenInput(filepath.Join(dir, "nope.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenInput(a missing file) = %v", err)
	}
}

// TestCheck: a plain CSV passes; gzip data is a *CompressedError naming the
// path, whatever the file's name; a missing file is its open error.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	plain, gz := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	os.WriteFile(plain, []byte("k\n1\n"), 0o644)
	os.WriteFile(gz, []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"), 0o644)
	if err := Check(plain); err != nil {
		t.Errorf("Check(plain) = %v", err)
	}
	var ce *CompressedError
	if err := Check(gz); !errors.As(err, &ce) || ce.Format != "gzip" || ce.Path != gz {
		t.Errorf("Check(gzip) = %v, want a *CompressedError of %s, gzip", err, gz)
	}
	if err := Check(filepath.Join(dir, "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check(missing) = %v", err)
	}
}

// TestIsURL: a scheme (a letter, then letters, digits, +, - and .) and
// "://" at the start; nothing else.
func TestIsURL(t *testing.T) {
	for p, want := range map[string]bool{
		"https://example.com/x.csv": true, "HTTP://h/x": true, "s3://bucket/x.csv": true, "gs+x.1://b/k": true,
		"x.csv": false, "dir/a://b.csv": false, "1x://y": false, "://z": false, "https:/h/x.csv": false, "C:\\x.csv": false,
	} {
		if got := IsURL(p); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestOpenInputURL: a URL that names no local file says it is a URL,
// still fs.ErrNotExist; a local file whose path looks like one opens; a
// path that only holds "://" later on is not a URL.
func TestOpenInputURL(t *testing.T) {
	for _, u := range []string{"s3://bucket/x.csv", "https://example.com/x.csv", "gs+x.1://b/k"} {
		_, _, err := OpenInput(u)
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "it is a URL") {
			t.Errorf("OpenInput(%q) = %v", u, err)
		}
	}
	for _, p := range []string{"dir/a://b.csv", "1x://y", "://z"} {
		if _, _, err := OpenInput(p); strings.Contains(fmt.Sprint(err), "URL") {
			t.Errorf("OpenInput(%q) = %v: not a URL", p, err)
		}
	}
	dir := t.TempDir()
	local := filepath.Join(dir, "s3:", "", "b.csv") // s3:/b.csv, a local file
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(local, []byte("k\n"), 0o644)
	t.Chdir(dir)
	if f, _, err := OpenInput("s3://b.csv"); err != nil {
		t.Errorf("OpenInput of a local s3:/b.csv by the name s3://b.csv: %v", err)
	} else {
		f.Close()
	}
}
