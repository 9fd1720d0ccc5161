package atomicfile

import "golang.org/x/sys/unix"

// adviseHuge asks for huge pages behind b, which starts on one. It is only
// a hint: without them the buffer works the same, with more work per write.
func adviseHuge(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
