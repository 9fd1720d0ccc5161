package fence

import (
	"bufio"
	"io"
)

// A Comparison compares a fence file with the fence of a fresh build,
// entry by entry as the build makes them, reading the file from start to
// end through a buffer: in fixed memory, however large the file. It is
// verify's counterpart of Writer.
type Comparison struct {
	f     io.ReaderAt
	size  int64
	r     *bufio.Reader // the file's entries
	s     Stream        // the fresh fence
	entry [entrySize]byte
	diff  int64 // the first byte of the file, past its header, that differs; -1 while none
}

// Compare starts comparing the fence file f, of size bytes, with a fresh
// fence, whose entries Add takes.
func Compare(f io.ReaderAt, size int64) *Comparison {
	return &Comparison{f: f, size: size, diff: -1,
		r: bufio.NewReaderSize(io.NewSectionReader(f, headerSize, max(0, size-headerSize)), 64<<10)}
}

// Add takes the fresh fence's next entry, the first hash of the next
// record page, and compares it with the file's.
func (c *Comparison) Add(first uint64) {
	want := c.s.Add(first)
	if c.diff >= 0 {
		return
	}
	n, _ := io.ReadFull(c.r, c.entry[:])
	for i := range want {
		if i >= n || c.entry[i] != want[i] {
			c.diff = headerSize + entrySize*int64(c.s.Entries()-1) + int64(i)
			return
		}
	}
}

// A Difference says how a fence file compares with a fresh fence.
type Difference struct {
	// Generation is the generation of the main index the file belongs to,
	// when Intact.
	Generation uint64
	// Intact says the file starts with an intact fence header: its magic,
	// this version and a matching checksum.
	Intact bool
	// Size is the file's size, and WantSize the fresh fence's.
	Size, WantSize int64
	// At is the first byte at which the file differs from the fresh fence,
	// header included, or -1 when they are equal. It is not set (-1) when
	// the sizes differ.
	At int64
}

// Result reads the file's header and says how the file differs from the
// fresh fence of the entries taken, for the main index with generation
// fresh. Errors are the file's read errors.
func (c *Comparison) Result(fresh uint64) (*Difference, error) {
	header := make([]byte, headerSize)
	n, err := c.f.ReadAt(header, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	d := &Difference{Size: c.size, WantSize: headerSize + entrySize*int64(c.s.Entries()), At: -1}
	d.Generation, d.Intact = Generation(header[:n])
	if d.Size != d.WantSize {
		return d, nil
	}
	d.At = c.diff
	for i, b := range c.s.Header(fresh) {
		if header[i] != b {
			d.At = int64(i)
			break
		}
	}
	return d, nil
}
