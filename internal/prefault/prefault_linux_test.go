package prefault

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

func TestInner(t *testing.T) {
	ps := pageSize
	for _, c := range []struct {
		p      uintptr
		n      int
		lo, hi uintptr
		ok     bool
	}{
		{ps, int(ps), 0, ps, true},
		{ps, int(3 * ps), 0, 3 * ps, true},
		{ps + 1, int(3 * ps), ps - 1, 3*ps - 1, true}, // pages 2 and 3 of a range from just past page 1
		{ps - 1, int(ps) + 1, 1, ps + 1, true},
		{ps + 1, int(ps), 0, 0, false}, // straddles two pages, holds neither whole
		{ps, int(ps) - 1, 0, 0, false},
		{ps, 0, 0, 0, false},
	} {
		lo, hi, ok := inner(c.p, c.n)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("inner(%#x, %d) = %d, %d, %v; want %d, %d, %v", c.p, c.n, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}

// faults returns the page faults this thread takes touching a byte of each
// of b's pages.
func faults(t *testing.T, b []byte) int64 {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &before); err != nil {
		t.Fatal(err)
	}
	sum := byte(0)
	for i := 0; i < len(b); i += int(pageSize) {
		sum += b[i]
	}
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &after); err != nil {
		t.Fatal(err)
	}
	sink += sum
	return (after.Minflt + after.Majflt) - (before.Minflt + before.Majflt)
}

var sink byte // keeps the touching loop from being optimized away

// supported skips the test where the kernel has no MADV_POPULATE_*; it
// prefaults b's first page to find out.
func supported(t *testing.T, b []byte, advice int) {
	t.Helper()
	if err := unix.Madvise(b[:pageSize], advice); errors.Is(err, unix.EINVAL) {
		t.Skip("the kernel has no MADV_POPULATE_* (Linux 5.14)")
	}
}

func TestWriteMapsInFreshMemory(t *testing.T) {
	const pages = 400
	m, err := unix.Mmap(-1, 0, pages*int(pageSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	supported(t, m, unix.MADV_POPULATE_WRITE)
	m[5*int(pageSize)+7] = 42
	// From the middle of page 1 to the middle of page 200: pages 2 to 199 are whole.
	Write(m[pageSize+100 : 200*pageSize+100])
	fewer(t, faults(t, m[2*pageSize:200*pageSize]), faults(t, m[200*pageSize:398*pageSize]))
	for i, c := range m {
		if c != 0 && !(i == 5*int(pageSize)+7 && c == 42) {
			t.Fatalf("byte %d is %d after Write", i, c)
		}
	}
}

// fewer fails unless touching the pages mapped in ahead faulted under a
// quarter as often as touching as many others (a few faults are the
// thread's own, its stack or signals), and those others faulted at all.
func fewer(t *testing.T, ahead, others int64) {
	t.Helper()
	if others < 16 {
		t.Fatalf("%d faults touching pages not mapped in ahead: the count does not see faults", others)
	}
	if 4*ahead >= others {
		t.Errorf("%d faults touching the pages mapped in ahead, %d touching as many others", ahead, others)
	}
}

func TestSmallAndEmpty(t *testing.T) {
	Write(nil)
	b := []byte("not a whole page")
	Write(b)
	if string(b) != "not a whole page" {
		t.Fatalf("Write changed a slice smaller than a page to %q", b)
	}
}
