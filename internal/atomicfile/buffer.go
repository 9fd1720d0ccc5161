package atomicfile

import (
	"os"

	"github.com/edsrzf/mmap-go"
)

// hugePage is the size of a transparent huge page on the systems that
// have them (x86-64 and most arm64 kernels).
const hugePage = 2 << 20

// Buffer is memory for direct writes, aligned to a block. One whose size is
// a multiple of 2 MiB is mapped outside the Go heap, where it can be backed
// by huge pages on the systems that have them (Linux). A direct write pins
// every page of its buffer and hands the device one segment per physically
// contiguous run: from 4 KiB pages a write of 1 MiB became two requests to
// this VM's disk, with the kernel's work for each page, while a 4 MiB write
// from huge pages is one request, and writing 1.6 GB took 0.03-0.05 s of
// system time instead of 0.24-0.25 s. A smaller buffer comes from the Go
// heap, whose idle memory can serve it without growing the process (a
// mapping of its own added 4-6 MiB to the peak of builds at small budgets).
type Buffer struct {
	m mmap.MMap // the whole mapping, or nil for memory from the heap
	b []byte    // the aligned part handed out
}

// NewBuffer returns a zeroed buffer of size bytes, a multiple of
// BlockSize. Free it when done.
func NewBuffer(size int) (*Buffer, error) {
	if size%hugePage != 0 {
		return &Buffer{b: AlignedBlocks(size / BlockSize)}, nil
	}
	pad := hugePage - os.Getpagesize() // room to start on a huge page
	// Private: shared anonymous memory is shmem, which gets no huge pages.
	m, err := mmap.MapRegion(nil, size+pad, mmap.COPY, mmap.ANON, 0)
	if err != nil {
		return nil, err
	}
	skip := (hugePage - int(addr(m)%hugePage)) % hugePage
	b := m[skip : skip+size : skip+size]
	adviseHuge(b)
	return &Buffer{m: m, b: b}, nil
}

// Bytes returns the buffer's memory, valid until Free.
func (b *Buffer) Bytes() []byte { return b.b }

// Free unmaps a mapped buffer, or leaves one from the heap to the garbage
// collector; its memory must not be used afterwards.
func (b *Buffer) Free() error {
	m := b.m
	b.m, b.b = nil, nil
	if m == nil {
		return nil
	}
	return m.Unmap()
}
