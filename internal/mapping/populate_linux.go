package mapping

import "golang.org/x/sys/unix"

// Populate maps in the pages holding bytes [from, to) of the mapping (to
// past the end means up to it), reading from the file those not in the page
// cache: one system call instead of a page fault every few pages, each of
// which costs microseconds on a virtual machine (MADV_POPULATE_READ, Linux
// 5.14). A hint: on an older kernel it does nothing, and at a page past the
// end of a file that shrank it stops, touching that page faulting as it
// would have (see Guard).
func (m *Map) Populate(from, to int) {
	to = min(to, len(m.m))
	if from < 0 || from >= to {
		return
	}
	start := from &^ (unix.Getpagesize() - 1) // the mapping starts on a page
	_ = unix.Madvise(m.m[start:to], unix.MADV_POPULATE_READ)
}

// Release unmaps the whole pages within bytes [from, to) of the mapping
// from this process (MADV_DONTNEED), pages a lookup has read and passed
// behind: its resident memory then stays that of the rows it is reading,
// not of every page it faulted in (with the kernel's fault-around, 64 KiB
// a row). The file's bytes stay in the page cache, and a later read of
// them faults them in again, the same bytes: a read-only mapping of a
// file holds no data of its own to lose. A hint: it may do nothing.
func (m *Map) Release(from, to int) {
	ps := unix.Getpagesize()
	from = (max(from, 0) + ps - 1) &^ (ps - 1)
	to = min(to, len(m.m)) &^ (ps - 1)
	if from >= to {
		return
	}
	_ = unix.Madvise(m.m[from:to], unix.MADV_DONTNEED)
}
