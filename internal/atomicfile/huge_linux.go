package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapHuge maps size bytes of private anonymous memory (shared anonymous
// memory is shmem, which gets no transparent huge pages), starting on a
// huge page, and advises them for huge pages. The advice is only a hint:
// without huge pages the buffer works the same, with more work per write.
func mapHuge(size int) ([]byte, func() error, error) {
	pad := hugePage - os.Getpagesize() // room to start on a huge page
	m, err := unix.Mmap(-1, 0, size+pad, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, err
	}
	skip := (hugePage - int(addr(m)%hugePage)) % hugePage
	b := m[skip : skip+size : skip+size]
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b, func() error { return unix.Munmap(m) }, nil
}
