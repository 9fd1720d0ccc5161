package mapping

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Evict drops the mapping's pages from this process and, through the file
// at path, from the page cache, so that the next read of them goes to
// storage, as on a cold cache. It needs no privilege; pages not yet
// written back are written first. It is for
// measurements: a lookup never calls it.
func (m *Map) Evict(path string) error {
	if len(m.m) == 0 {
		return nil
	}
	if err := unix.Madvise(m.m, unix.MADV_DONTNEED); err != nil {
		return err
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0) // never wait on a FIFO
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	// Dirty pages (a file just written) cannot be dropped: write them first.
	if err := unix.Fdatasync(fd); err != nil {
		return err
	}
	return unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}

// WillNeedFile asks the kernel to start reading n bytes at each offset of
// the file at path (fadvise WILLNEED), without waiting, before the file is
// opened for good: reads that would follow one another then overlap. It is
// only advice: errors are ignored.
func WillNeedFile(path string, n int64, offs ...int64) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0) // never wait on a FIFO
	if err != nil {
		return
	}
	for _, off := range offs {
		_ = unix.Fadvise(fd, off, n, unix.FADV_WILLNEED)
	}
	unix.Close(fd)
}

// Resident returns how many of the mapping's pages are in memory.
func (m *Map) Resident() (int, error) { return m.ResidentIn(len(m.m)) }

// ResidentIn returns how many pages of the mapping's first n bytes are in
// memory. It asks the kernel about residentBatch pages at a time, so that
// asking about a mapping of terabytes takes a bounded buffer.
func (m *Map) ResidentIn(n int) (int, error) {
	n = min(max(n, 0), len(m.m))
	ps := unix.Getpagesize()
	vec := make([]byte, min((n+ps-1)/ps, residentBatch))
	count := 0
	for at := 0; at < n; {
		size := min(n-at, len(vec)*ps)
		pages := (size + ps - 1) / ps
		_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m.m[at])), uintptr(size), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
		if errno != 0 {
			return 0, errno
		}
		for _, v := range vec[:pages] {
			count += int(v & 1)
		}
		at += size
	}
	return count, nil
}

// residentBatch is the most pages ResidentIn asks about in one call: 1 MiB
// of answers, for 4 GiB of a mapping.
const residentBatch = 1 << 20

// WillNeedAll asks the kernel to start reading the whole file.
func (m *Map) WillNeedAll() {
	if len(m.m) > 0 {
		_ = unix.Madvise(m.m, unix.MADV_WILLNEED)
	}
}

// WillNeed asks the kernel to start reading the pages holding data[off] for
// each offset, all at once, so that reads of them wait for one trip to
// storage rather than one per page.
func (m *Map) WillNeed(offs []uint64) {
	ps := uint64(unix.Getpagesize())
	for _, off := range offs {
		if off >= uint64(len(m.m)) {
			continue
		}
		start := off &^ (ps - 1)
		end := min(start+ps, uint64(len(m.m)))
		_ = unix.Madvise(m.m[start:end], unix.MADV_WILLNEED)
	}
}
