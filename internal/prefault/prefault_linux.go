package prefault

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Write maps in the whole pages of b, fresh memory about to be written, so
// that the writes find them (MADV_POPULATE_WRITE). The contents stay as
// they are: zeros in fresh memory.
func Write(b []byte) {
	lo, hi, ok := inner(uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b))
	if ok {
		_ = unix.Madvise(b[lo:hi], unix.MADV_POPULATE_WRITE) // a hint: a failure costs only the faults it would have saved
	}
}

// pageSize is the unit the kernel maps in; only the whole pages inside a
// range are prefaulted, as madvise takes whole pages and the rest may belong
// to other objects.
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
