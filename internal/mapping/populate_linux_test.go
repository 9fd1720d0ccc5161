package mapping

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// rssKiB returns how much of m this process has mapped in (MappedKiB).
func rssKiB(t *testing.T, m *Map) int {
	t.Helper()
	kib, err := m.MappedKiB()
	if err != nil {
		t.Skip(err)
	}
	return kib
}

// mappedFile writes data to a file and maps it with advice a; the file and
// the mapping are closed when the test ends. It returns the mapping and
// the file's path.
func mappedFile(t *testing.T, data []byte, a Advice) (*Map, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := File(f, int64(len(data)), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, p
}

func TestPopulate(t *testing.T) {
	want := bytes.Repeat([]byte("0123456789abcdef\n"), 100_000) // 1.7 MB
	m, p := mappedFile(t, want, Sequential)
	probe, err := unix.Mmap(-1, 0, os.Getpagesize(), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	err = unix.Madvise(probe, unix.MADV_POPULATE_READ)
	unix.Munmap(probe)
	if errors.Is(err, unix.EINVAL) {
		t.Skip("the kernel has no MADV_POPULATE_READ (Linux 5.14)")
	}
	if rss := rssKiB(t, m); rss != 0 {
		t.Fatalf("%d KiB mapped in before Populate", rss)
	}
	// From the middle of a page, a third of the file: all of it mapped in
	// (more may be, a large folio at a time), not the whole file.
	from, to := 100_000, 100_000+len(want)/3
	m.Populate(from, to)
	if rss := rssKiB(t, m); rss < (to-from)/1024 {
		t.Errorf("%d KiB mapped in after Populate of %d KiB", rss, (to-from)/1024)
	}
	m.Populate(-1, 10)           // out of range: nothing
	m.Populate(len(want), 1<<40) // empty
	m.Populate(0, 1<<40)         // past the end: up to it
	if !bytes.Equal(m.Bytes(), want) {
		t.Fatal("the mapping differs from the file after Populate")
	}
	// A file that shrank under its mapping: Populate stops at its end
	// without a fault, and the pages before it are as they were.
	if err := os.Truncate(p, int64(len(want)/2)); err != nil {
		t.Fatal(err)
	}
	m.Populate(0, len(want))
	if !bytes.Equal(m.Bytes()[:len(want)/4], want[:len(want)/4]) {
		t.Fatal("the mapping's first quarter differs after Populate of a shrunk file")
	}
}

// TestRelease: the pages released leave the process's resident memory,
// those around them (a partial page at each end) stay, and the bytes read
// afterwards are the file's still.
func TestRelease(t *testing.T) {
	want := bytes.Repeat([]byte("0123456789abcdef\n"), 500_000) // 8.5 MB
	m, _ := mappedFile(t, want, Random)
	var sum byte
	ps := os.Getpagesize()
	for off := 0; off < len(want); off += ps {
		sum += m.Bytes()[off] // every page mapped in
	}
	runtime.KeepAlive(sum)
	before := rssKiB(t, m)
	if before < len(want)/1024*9/10 {
		t.Skipf("only %d KiB of %d mapped in after reading every page", before, len(want)/1024)
	}
	from, to := 1000, len(want)-1000 // partial pages at both ends: kept
	m.Release(from, to)
	after := rssKiB(t, m)
	if after > 2*ps/1024+4 {
		t.Errorf("%d KiB mapped in after releasing all but the ends (%d KiB before)", after, before)
	}
	m.Release(-5, 1<<40) // out of range: clamped
	m.Release(10, 5)     // empty
	if !bytes.Equal(m.Bytes(), want) {
		t.Fatal("the mapping differs from the file after Release")
	}
}
