package index

import (
	"fmt"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/atomicfile"
)

// fileSink writes pages to a new index file: the record pages through
// buffers, then the header in place at the start. The buffers are aligned
// and every write a whole number of pages, so the file can bypass the page
// cache (direct I/O), which on virtual machines writes a big index several
// times faster, and leaves the cache to the CSV. A direct write returns when
// the device has the data, so the writes run on their own goroutine while
// the next buffer fills: a build or compact sorts and merges while the disk
// writes.
type fileSink struct {
	f     *atomicfile.File
	shape writerShape
	buf   []byte               // the buffer being filled: aligned, whole pages
	n     int                  // bytes of buf in use
	off   int64                // where buf goes in the file
	spare [][]byte             // buffers free to fill; the others are with the writer
	made  []*atomicfile.Buffer // every buffer made, freed by close
	err   error                // the first write error
	jobs  chan sinkWrite
	back  chan sinkWrite // buffers the writer is done with, and its error
	done  chan struct{}
}

// sinkWrite is a buffer to write at off, or one written, with the error.
type sinkWrite struct {
	buf []byte
	off int64
	err error
}

// writerShape is how the index writer buffers its writes: buffers of size
// bytes, each one write, first of them made at the start, and up to ceiling
// when the disk falls behind.
type writerShape struct{ size, first, ceiling int }

const (
	bigWrite       = 4 << 20   // bytes per write with a budget of bigWriteBudget or more: two huge pages (see atomicfile.Buffer)
	bigWriteBudget = 512 << 20 // the budget from which writes are big
	smallWrite     = 1 << 20   // bytes per write under it
	writerFree     = 4 << 20   // bytes of buffers the writer has outside the budget; the rest comes from the sort's share
	writerMost     = 32 << 20  // bytes of buffers at most, when the budget allows (see Resources.writeShape)
	minBuffers     = 2         // buffers at the least: one filling, one being written
)

// newFileSink returns a sink writing to f with buffers of the given shape
// (from Resources.writeShape: minBuffers <= first <= ceiling): a buffer beyond
// the first ones is made only when every one is with the writer, so a disk
// that keeps up costs no memory beyond them, and one that stalls for a
// moment does not stall the sort that fills them. Close the sink to free
// them.
func newFileSink(f *atomicfile.File, shape writerShape) (*fileSink, error) {
	s := &fileSink{f: f, shape: shape, off: format.PageSize, jobs: make(chan sinkWrite, shape.ceiling),
		back: make(chan sinkWrite, shape.ceiling), done: make(chan struct{})}
	for range shape.first {
		b, err := s.newBuffer()
		if err != nil {
			s.free()
			return nil, fmt.Errorf("write buffers: %w", err)
		}
		s.spare = append(s.spare, b)
	}
	s.buf, s.spare = s.spare[0], s.spare[1:]
	go s.write()
	return s, nil
}

// newBuffer makes a write buffer.
func (s *fileSink) newBuffer() ([]byte, error) {
	b, err := atomicfile.NewBuffer(s.shape.size)
	if err != nil {
		return nil, err
	}
	s.made = append(s.made, b)
	return b.Bytes(), nil
}

// free gives the buffers back.
func (s *fileSink) free() {
	for _, b := range s.made {
		_ = b.Free() // unmapping a whole mapping of this process's own fails only on a bug
	}
	s.made, s.buf, s.spare = nil, nil, nil
}

// write is the writer goroutine: it writes the buffers it is handed, in
// order, and after an error only hands them back.
func (s *fileSink) write() {
	defer close(s.done)
	var err error
	for j := range s.jobs {
		if err == nil {
			_, err = s.f.WriteAt(j.buf, j.off)
		}
		s.back <- sinkWrite{buf: j.buf[:cap(j.buf)], err: err}
	}
}

// slot returns the next page of the buffer being filled.
func (s *fileSink) slot() []byte {
	return s.buf[s.n : s.n+format.PageSize]
}

// filled takes the page in the last slot.
func (s *fileSink) filled() error {
	if s.err != nil {
		return s.err
	}
	s.n += format.PageSize
	if s.n == len(s.buf) {
		return s.submit()
	}
	return nil
}

func (s *fileSink) WritePage(n uint64, page []byte) error {
	if s.err != nil {
		return s.err
	}
	if n != 0 {
		copy(s.slot(), page)
		return s.filled()
	}
	if err := s.flush(); err != nil {
		return err
	}
	copy(s.buf, page)
	_, err := s.f.WriteAt(s.buf[:format.PageSize], 0)
	return err
}

// submit hands the buffer being filled to the writer and takes a free one:
// one the writer is done with, else a new one while it may make more, else
// it waits for a write to finish.
func (s *fileSink) submit() error {
	s.jobs <- sinkWrite{buf: s.buf[:s.n], off: s.off}
	s.off += int64(s.n)
	s.n = 0
	if len(s.spare) == 0 {
		select {
		case b := <-s.back:
			if err := s.took(b); err != nil {
				return err
			}
		default:
			if !s.grow() {
				if err := s.receive(); err != nil {
					return err
				}
			}
		}
	}
	s.buf, s.spare = s.spare[len(s.spare)-1], s.spare[:len(s.spare)-1]
	return nil
}

// grow makes a spare buffer if the shape allows one more, and reports
// whether it did. Without the memory for it, the sink waits for the disk
// instead.
func (s *fileSink) grow() bool {
	if len(s.made) == s.shape.ceiling {
		return false
	}
	b, err := s.newBuffer()
	if err != nil {
		return false
	}
	s.spare = append(s.spare, b)
	return true
}

// receive takes back a buffer the writer is done with, waiting for one.
func (s *fileSink) receive() error {
	return s.took(<-s.back)
}

// took takes back b, a buffer the writer is done with.
func (s *fileSink) took(b sinkWrite) error {
	s.spare = append(s.spare, b.buf)
	if b.err != nil && s.err == nil {
		s.err = b.err
	}
	return s.err
}

// flush writes what is buffered and waits for every write to finish.
func (s *fileSink) flush() error {
	if s.n > 0 {
		if err := s.submit(); err != nil {
			return err
		}
	}
	for len(s.spare) < len(s.made)-1 { // all back but the one being filled
		if err := s.receive(); err != nil {
			return err
		}
	}
	return nil
}

// close stops the writer goroutine, after the writes handed to it, and
// frees the buffers.
func (s *fileSink) close() {
	close(s.jobs)
	<-s.done
	s.free()
}
