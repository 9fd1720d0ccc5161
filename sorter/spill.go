package sorter

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"
)

// errStopped is returned by a background spill that Close stopped.
var errStopped = errors.New("sorter: spill stopped by Close")

// spillFile is a temporary file of records, written by appending through a buffer and read
// back by offset. It holds the Sorter's own records in their in-memory layout: it is never
// read by another program or on another machine.
type spillFile struct {
	f    *os.File
	size int64  // bytes appended, buffered ones included
	buf  []byte // appended bytes not yet written
	dir  string
}

// createSpill creates a spill file where opts say.
func createSpill(opts Options, bufBytes int) (*spillFile, error) {
	dir, prefix := opts.TmpDir, opts.TmpPrefix
	if dir == "" {
		dir = os.TempDir()
	}
	if prefix == "" {
		prefix = "csvidx-sort-"
	}
	f, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return nil, fmt.Errorf("sorter: create a spill file in %s: %w", dir, err)
	}
	return &spillFile{f: f, dir: dir, buf: make([]byte, 0, bufBytes)}, nil
}

// write appends recs and returns where they start.
func (s *spillFile) write(recs []Record) (int64, error) {
	off := s.size
	b := asBytes(recs)
	s.size += int64(len(b))
	if len(s.buf)+len(b) > cap(s.buf) {
		if err := s.flush(); err != nil {
			return 0, err
		}
	}
	if len(b) > cap(s.buf) {
		_, err := s.f.Write(b)
		return off, s.wrap(err)
	}
	s.buf = append(s.buf, b...)
	return off, nil
}

// writeGeneration appends the records of arenas out as one generation, partition by
// partition, each partition's records from every arena in order, and sets g to where they
// are. It gives up with errStopped between partitions once stop (if not nil) is set.
func (s *spillFile) writeGeneration(g *generation, out []*arena, stop *atomic.Bool) error {
	for d := range partitions {
		if stop != nil && stop.Load() {
			return errStopped
		}
		g.part[d].off = s.size
		for _, a := range out {
			seg := a.recs[a.start[d]:a.start[d+1]]
			if _, err := s.write(seg); err != nil {
				return err
			}
			g.part[d].n += int64(len(seg))
		}
	}
	return nil
}

// flush writes the buffered bytes.
func (s *spillFile) flush() error {
	_, err := s.f.Write(s.buf)
	s.buf = s.buf[:0]
	return s.wrap(err)
}

func (s *spillFile) wrap(err error) error {
	if err != nil {
		return fmt.Errorf("sorter: spill records to %s: %w", s.dir, err)
	}
	return nil
}

// read fills recs from the file at off. The buffer must have been flushed.
func (s *spillFile) read(off int64, recs []Record) error {
	if _, err := s.f.ReadAt(asBytes(recs), off); err != nil {
		return fmt.Errorf("sorter: read back spilled records from %s: %w", s.dir, err)
	}
	return nil
}

// remove closes and deletes the file.
func (s *spillFile) remove() error {
	err := s.f.Close()
	if rerr := os.Remove(s.f.Name()); err == nil {
		err = rerr
	}
	return err
}

// asBytes views records as the bytes they are made of.
func asBytes(recs []Record) []byte {
	if len(recs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(recs))), len(recs)*recordBytes)
}
