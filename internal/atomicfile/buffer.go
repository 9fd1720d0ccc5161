package atomicfile

import "fmt"

// hugePage is the size of a transparent huge page on the systems that
// have them (x86-64 and most arm64 Linux kernels).
const hugePage = 2 << 20

// Buffer is memory for direct writes, aligned to a block. On Linux, one
// whose size is a multiple of 2 MiB is mapped on its own, aligned to 2 MiB
// and advised for transparent huge pages (a hint the kernel may decline):
// a direct write pins every page of its buffer and hands the device one
// segment per physically contiguous run, so from huge pages it takes the
// kernel far less work and reaches the device as fewer, larger requests.
// Any other buffer comes from the Go heap, whose idle memory can serve it
// without growing the process.
type Buffer struct {
	b     []byte       // the aligned memory handed out
	unmap func() error // gives a mapped buffer back, or nil for one from the heap
}

// NewBuffer returns a zeroed buffer of size bytes, a positive multiple of
// BlockSize. Free it when done.
func NewBuffer(size int) (*Buffer, error) {
	if size <= 0 || size%BlockSize != 0 {
		return nil, fmt.Errorf("atomicfile: buffer of %d bytes is not a whole number of blocks", size)
	}
	if size%hugePage == 0 {
		b, unmap, err := mapHuge(size)
		if err != nil {
			return nil, fmt.Errorf("map a write buffer of %d bytes: %w", size, err)
		}
		if b != nil {
			return &Buffer{b: b, unmap: unmap}, nil
		}
	}
	return &Buffer{b: AlignedBlocks(size / BlockSize)}, nil
}

// Bytes returns the buffer's memory, valid until Free.
func (b *Buffer) Bytes() []byte { return b.b }

// Free gives a mapped buffer back to the system, or leaves one from the
// heap to the garbage collector. Its memory must not be used afterwards.
func (b *Buffer) Free() error {
	unmap := b.unmap
	b.b, b.unmap = nil, nil
	if unmap == nil {
		return nil
	}
	return unmap()
}
