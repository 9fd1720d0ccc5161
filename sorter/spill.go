package sorter

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/csvidx/csvidx/internal/tmpfile"
)

// errStopped is returned by a background spill that Close stopped.
var errStopped = errors.New("sorter: spill stopped by Close")

// maxLanes is the most spill files a Sorter writes at once.
const maxLanes = 4

// spillSet is a Sorter's spill files, one per lane: each lane holds a range of partitions,
// of every generation, and the lanes of a generation are written at once, each on a
// goroutine of its own. With several threads the spill is the one part of adding records
// that does not run on the goroutines that scan, and on the reference VM writing a file
// through the page cache costs up to 3.6 s of system time per gigabyte (its fresh pages
// are slow to touch): two writers of 512 MiB to two files took 0.9-1.34 s each where one
// writer of a gigabyte took 3.35-3.75 s. (Two writers to one file would wait for each
// other: a file takes one buffered write at a time.)
type spillSet struct {
	lanes  []*spillFile
	remove func() error // closes and deletes the files, once: later calls return the first's result
}

// createSpills creates lanes spill files where opts say, each with a write buffer of
// bufBytes.
func createSpills(opts Options, lanes, bufBytes int) (*spillSet, error) {
	s := &spillSet{}
	s.remove = sync.OnceValue(func() error {
		return s.eachLane(func(_ int, f *spillFile) error { return f.remove() })
	})
	for range lanes {
		f, err := createSpill(opts, bufBytes)
		if err != nil {
			s.remove()
			return nil, err
		}
		s.lanes = append(s.lanes, f)
	}
	return s, nil
}

// lane returns the spill file of partition d.
func (s *spillSet) lane(d int) *spillFile {
	return s.lanes[d*len(s.lanes)/partitions]
}

// laneStart returns the first partition of lane i (of the lane after the last: partitions).
func (s *spillSet) laneStart(i int) int {
	return (i*partitions + len(s.lanes) - 1) / len(s.lanes) // the least d with d*lanes/partitions == i
}

// eachLane calls fn for every lane, each on a goroutine of its own if there are several,
// and returns the first error that is not errStopped, else errStopped, else nil.
func (s *spillSet) eachLane(fn func(i int, f *spillFile) error) error {
	errs := make([]error, len(s.lanes))
	if len(s.lanes) == 1 {
		errs[0] = fn(0, s.lanes[0])
	} else {
		var wg sync.WaitGroup
		for i, f := range s.lanes {
			wg.Go(func() { errs[i] = fn(i, f) })
		}
		wg.Wait()
	}
	var stopped error
	for _, err := range errs {
		switch {
		case err == errStopped:
			stopped = err
		case err != nil:
			return err
		}
	}
	return stopped
}

// writeGeneration appends the records of arenas out to the lanes as one generation,
// partition by partition, each partition's records from every arena in order, and sets g
// to where they are. It gives up with errStopped between partitions once stop (if not nil)
// is set, and the other lanes give up as soon as one fails.
func (s *spillSet) writeGeneration(g *generation, out []*arena, stop *atomic.Bool) error {
	var failed atomic.Bool
	stopped := func() bool { return failed.Load() || stop != nil && stop.Load() }
	return s.eachLane(func(i int, f *spillFile) error {
		err := f.writeParts(g, out, s.laneStart(i), s.laneStart(i+1), stopped)
		if err != nil {
			failed.Store(true)
		}
		return err
	})
}

// flush writes what every lane has buffered.
func (s *spillSet) flush() error {
	return s.eachLane(func(_ int, f *spillFile) error { return f.flush() })
}

// read fills recs from partition d's lane at off. The lanes must have been flushed.
func (s *spillSet) read(d int, off int64, recs []Record) error {
	return s.lane(d).read(off, recs)
}

// startRemove closes and deletes the files on a goroutine of its own (one per lane):
// deleting a file lets go of its pages in the page cache, 30 ms for half a gigabyte on the
// reference VM. remove waits for it.
func (s *spillSet) startRemove() {
	go s.remove()
}

// spillFile is a temporary file of records, written by appending through a buffer and read
// back by offset. It holds the Sorter's own records in their in-memory layout: it is never
// read by another program or on another machine.
//
// The file has no name where the system allows it (O_TMPFILE on Linux), else its name is
// removed right after it is created: either way the kernel deletes it when the process
// ends, even by SIGKILL or the OOM killer, and no later run has anything to clean up. Only
// where an open file cannot be unlinked (Windows) does it keep its name until remove.
type spillFile struct {
	f     *os.File
	size  int64  // bytes appended, buffered ones included
	buf   []byte // appended bytes not yet written
	dir   string
	named string // the file's path while it has one, for remove
}

// createSpill creates a spill file where opts say.
func createSpill(opts Options, bufBytes int) (*spillFile, error) {
	dir := opts.TmpDir
	if dir == "" {
		dir = os.TempDir()
	}
	f, named, err := tmpfile.Create(dir, opts.TmpName)
	if err != nil {
		return nil, fmt.Errorf("sorter: create a spill file in %s: %w", dir, err)
	}
	return &spillFile{f: f, dir: dir, named: named, buf: make([]byte, 0, bufBytes)}, nil
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

// writeParts appends the records of partitions lo to hi-1 of arenas out, partition by
// partition, each partition's records from every arena in order, and sets their places in
// g. It gives up with errStopped between partitions once stopped returns true.
func (s *spillFile) writeParts(g *generation, out []*arena, lo, hi int, stopped func() bool) error {
	for d := lo; d < hi; d++ {
		if stopped() {
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

// remove closes the file, which deletes it, and removes its name if it still has one.
func (s *spillFile) remove() error {
	err := s.f.Close()
	if s.named != "" {
		if rerr := os.Remove(s.named); err == nil {
			err = rerr
		}
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
