package mapping

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestGuardFault maps a file, truncates it, and reads the lost page: the
// fault must come back as ErrFault.
func TestGuardFault(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 3*4096), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := File(f, 3*4096, Random)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	var sink byte
	err = Guard(func() error {
		sink += m.Bytes()[2*4096]
		return nil
	}, m)
	if !errors.Is(err, ErrFault) {
		t.Fatalf("reading a truncated mapping: %v, want ErrFault", err)
	}
}

// TestGuardOtherFaults: a fault outside the guarded mappings (a bug in the
// guarded function) is not mistaken for a shrunk file: it panics on.
func TestGuardOtherFaults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, make([]byte, 4096), 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := File(f, 4096, Normal)
	if err != nil {
		t.Fatal(err)
	}
	gone := unsafe.Pointer(unsafe.SliceData(m.Bytes()))
	m.Close() // the address now faults, and belongs to no guarded mapping
	defer func() {
		r := recover()
		if _, ok := r.(interface{ Addr() uintptr }); !ok {
			t.Fatalf("a fault outside the guarded mappings gave %v, want the fault's panic", r)
		}
	}()
	Guard(func() error {
		_ = *(*byte)(gone)
		return nil
	})
	t.Fatal("reading unmapped memory inside Guard returned")
}

func TestEmpty(t *testing.T) {
	m, err := File(nil, 0, Normal)
	if err != nil || len(m.Bytes()) != 0 {
		t.Fatalf("File of size 0 = %v, %v", m, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpen reads a file opened by Open and checks that a missing file's
// error reads and unwraps as os.Open's does.
func TestOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, st, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st.Size() != 5 || !st.Mode().IsRegular() {
		t.Fatalf("stat: %d bytes, mode %v", st.Size(), st.Mode())
	}
	b := make([]byte, 3)
	if _, err := f.ReadAt(b, 2); err != nil || string(b) != "llo" {
		t.Fatalf("ReadAt = %q, %v", b, err)
	}
	missing := p + ".missing"
	_, _, err = Open(missing)
	_, want := os.Open(missing)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != want.Error() {
		t.Fatalf("Open of a missing file = %v, want %v", err, want)
	}
}
