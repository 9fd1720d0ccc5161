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
