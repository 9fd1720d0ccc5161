package prefault

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read maps in the pages of b, part of a file mapping, for reading, reading
// from the file those not in the page cache (MADV_POPULATE_READ). Past the
// end of a file that shrank it stops; touching those pages then faults as
// it would have.
func Read(b []byte) { populate(b, unix.MADV_POPULATE_READ) }

// Write maps in the pages of b, fresh memory about to be written, so that
// the writes find them (MADV_POPULATE_WRITE). The contents stay as they
// are: zeros in fresh memory.
func Write(b []byte) { populate(b, unix.MADV_POPULATE_WRITE) }

func populate(b []byte, advice int) {
	if len(b) == 0 {
		return
	}
	lo, hi, ok := inner(uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b))
	if !ok {
		return
	}
	_ = unix.Madvise(b[lo:hi], advice) // a hint: a failure costs only the faults it would have saved
}

// pageSize is the unit the kernel maps in; only the whole pages inside a
// range are prefaulted.
var pageSize = uintptr(unix.Getpagesize())

// inner returns the offsets within a range of n bytes at address p of the
// first and the end of the whole pages it holds, and whether there are any.
func inner(p uintptr, n int) (lo, hi uintptr, ok bool) {
	lo = (p + pageSize - 1) &^ (pageSize - 1)
	hi = (p + uintptr(n)) &^ (pageSize - 1)
	if hi <= lo {
		return 0, 0, false
	}
	return lo - p, hi - p, true
}
