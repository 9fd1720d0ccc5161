package source

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/csvidx/csvidx/internal/mapping"
)

func writeFile(t *testing.T, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(p, []byte(data), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenFile: the bytes, size, name and permission bits of the file as
// opened; ReadAt reads the file itself, io.EOF past its end; a directory
// is refused.
func TestOpenFile(t *testing.T) {
	const data = "k,v\n1,a\n2,b\n"
	p := writeFile(t, data)
	f, err := OpenFile(p, mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if string(f.Bytes()) != data || f.Identity().Size != int64(len(data)) || f.Name() != p || f.Identity().Perm != 0o640 {
		t.Fatalf("Bytes %q, Size %d, Name %q, Perm %v", f.Bytes(), f.Identity().Size, f.Name(), f.Identity().Perm)
	}
	buf := make([]byte, 3)
	if n, err := f.ReadAt(context.Background(), buf, 8); n != 3 || err != nil || string(buf) != "2,b" {
		t.Fatalf("ReadAt = %d, %v, %q", n, err, buf)
	}
	if n, err := f.ReadAt(context.Background(), buf, int64(len(data))-1); n != 1 || err != io.EOF {
		t.Fatalf("ReadAt past the end = %d, %v; want 1, io.EOF", n, err)
	}
	if _, err := OpenFile(filepath.Dir(p), mapping.Random); !errors.Is(err, mapping.ErrNotRegular) {
		t.Fatalf("OpenFile(a directory) = %v", err)
	}
}

// TestIdentity: an untouched file is the same version (where the change
// time is known); an append, a write in place of the same size with the
// modification time set back, and a chmod are not.
func TestIdentity(t *testing.T) {
	p := writeFile(t, "k\n1\n")
	f, err := OpenFile(p, mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	same := func() bool {
		now, err := f.Current()
		if err != nil {
			t.Fatal(err)
		}
		return f.Identity().Same(now)
	}
	if got, want := same(), runtime.GOOS == "linux"; got != want {
		t.Fatalf("untouched: Same = %v, want %v", got, want)
	}
	was := f.Identity().ModTime
	time.Sleep(10 * time.Millisecond)
	for name, change := range map[string]func() error{
		"chmod": func() error { return os.Chmod(p, 0o600) },
		"in place, mtime set back": func() error {
			if err := os.WriteFile(p, []byte("k\n2\n"), 0o600); err != nil {
				return err
			}
			return os.Chtimes(p, was, was)
		},
		"append": func() error {
			w, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			w.WriteString("3\n")
			return w.Close()
		},
	} {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		if same() {
			t.Errorf("%s: Same = true", name)
		}
	}
}

// TestGuard: a read past the end of a file cut short under its mapping is
// ErrChanged naming the file, not a crash; fn's own error passes through.
func TestGuard(t *testing.T) {
	p := writeFile(t, string(bytes.Repeat([]byte("1234567,\n"), 4096)))
	f, err := OpenFile(p, mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mine := errors.New("mine")
	if err := f.Guard(func() error { return mine }); err != mine {
		t.Fatalf("Guard(fn's error) = %v", err)
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	var sum byte
	err = f.Guard(func() error {
		for _, b := range f.Bytes() {
			sum += b
		}
		return nil
	})
	if !errors.Is(err, ErrChanged) || !bytes.Contains([]byte(err.Error()), []byte(p)) {
		t.Fatalf("Guard over a truncated file = %v, want ErrChanged naming %s", err, p)
	}
}

// TestRelease: Release drops the bytes at once, is idempotent, and Close
// waits for the unmapping.
func TestRelease(t *testing.T) {
	f, err := OpenFile(writeFile(t, "k\n1\n"), mapping.Sequential)
	if err != nil {
		t.Fatal(err)
	}
	f.Release()
	f.Release()
	if f.Bytes() != nil {
		t.Fatal("Bytes after Release")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
