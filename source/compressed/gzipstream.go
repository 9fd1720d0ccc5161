package compressed

import (
	"context"
	"errors"
	"sync"

	"github.com/csvidx/csvidx/source"
)

// A GzipStream is a plain gzip file opened without a table (see
// StreamGzip): a source.Walking whose walk (see WalkGzip) runs on a
// goroutine of its own, keeping the plain bytes it inflated last, which
// reads from front to back take as they come, while it goes on. So a build
// inflates the file once, and scans it on another core meanwhile. Once the
// walk is done, the stream reads as the Gzip of the table it made; a read
// of bytes the walk no longer keeps waits for that.
type GzipStream struct {
	name string
	f    source.Raw // the compressed file
	id   source.Identity
	done chan struct{} // closed at the walk's end

	mu     sync.Mutex
	cond   *sync.Cond
	kept   plainChunks // the plain bytes inflated last; its end is the plain bytes inflated so far
	want   int64       // the furthest byte a read asked for: the walk runs streamAhead past it
	free   bool        // the walk runs to its end without waiting for reads
	closed bool        // Close stops the walk
	ended  bool        // the walk is done: g or err is set
	g      *Gzip       // the source through the walk's table
	err    error       // why the walk failed
}

const (
	// streamAhead is how far the walk inflates past the furthest byte
	// read; it then waits.
	streamAhead = 4 << 20
	// streamKeep is how many plain bytes the walk keeps, the last it
	// inflated: what is ahead of the reads and a scan's window behind.
	streamKeep = streamAhead + 8<<20
)

var (
	_ source.Walking = (*GzipStream)(nil)
	_ source.Tabled  = (*GzipStream)(nil)
)

// errStreamClosed stops the walk of a stream closed before its end.
var errStreamClosed = errors.New("the gzip stream was closed")

// StreamGzip opens the plain gzip file at path as a GzipStream, starting
// its walk with checkpoints span plain bytes apart (DefaultSpan when 0).
func StreamGzip(path string, span int64) (*GzipStream, error) {
	if span <= 0 {
		span = DefaultSpan
	}
	f, err := source.OpenRaw(path)
	if err != nil {
		return nil, err
	}
	if f.Size() == 0 {
		f.Close()
		return nil, &CorruptError{path, 0, "the file is empty, not gzip"}
	}
	s := &GzipStream{name: path, f: f, id: f.Identity(), done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	f.WillNeed(0, f.Size())
	go s.walk(f.Size(), span)
	return s, nil
}

// walk walks the file, feeding the plain bytes to the stream, and sets
// what it made at its end.
func (s *GzipStream) walk(size, span int64) {
	cps, err := walkGzipTo(s.f, size, s.name, span, []Checkpoint{{}}, s.feed)
	if err == nil {
		err = checkSpans(cps, s.name)
	}
	s.mu.Lock()
	if err == nil {
		s.g = &Gzip{name: s.name, f: s.f, id: s.id, cps: cps, every: span}
	}
	s.err, s.ended = err, true
	s.kept.reset(s.kept.end) // reads go through the table now
	s.cond.Broadcast()
	s.mu.Unlock()
	close(s.done)
}

// feed keeps b, the plain bytes at offset at, dropping the oldest kept
// past streamKeep, waits while the walk is streamAhead past the furthest
// byte read (unless it runs free), and returns the buffer to inflate into
// next: one of those dropped, whose bytes no one reads any more.
func (s *GzipStream) feed(b []byte, at int64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept.add(b, at, streamKeep) // reads copy out under mu: no one holds a buffer dropped
	s.cond.Broadcast()
	for !s.free && !s.closed && s.kept.end > s.want+streamAhead {
		s.cond.Wait()
	}
	if s.closed {
		return nil, errStreamClosed
	}
	return s.kept.buffer(256 << 10), nil
}

// ReadAt reads the plain bytes [off, off+len(p)): from those the walk
// keeps, once it has inflated them, or, for bytes it no longer keeps,
// through its table once it is done.
func (s *GzipStream) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &CorruptError{s.name, 0, "a read before the start"}
	}
	end := off + int64(len(p))
	s.mu.Lock()
	if end > s.want {
		s.want = end
		s.cond.Broadcast()
	}
	for !s.ended && s.kept.end < end && !s.kept.dropped(off) {
		s.cond.Wait()
	}
	if !s.ended && !s.kept.dropped(off) {
		n := s.kept.copyTo(p, off)
		s.mu.Unlock()
		return n, nil
	}
	s.free = true // the walk's end is what this read waits for
	s.cond.Broadcast()
	s.mu.Unlock()
	<-s.done
	if s.err != nil {
		return 0, s.err
	}
	return s.g.ReadAt(ctx, p, off)
}

// walked waits for the walk's end, letting it run free, and returns the
// source through its table, or its error.
func (s *GzipStream) walked() (*Gzip, error) {
	s.mu.Lock()
	s.free = true
	s.cond.Broadcast()
	s.mu.Unlock()
	<-s.done
	return s.g, s.err
}

// Known returns the plain size once the walk is done without an error.
func (s *GzipStream) Known() (int64, bool) {
	select {
	case <-s.done:
		if s.err == nil {
			return s.g.Size(), true
		}
	default:
	}
	return 0, false
}

// Name returns the path the file was opened by.
func (s *GzipStream) Name() string { return s.name }

// Size returns the plain size, once the walk is done (0 if it failed).
func (s *GzipStream) Size() int64 {
	g, err := s.walked()
	if err != nil {
		return 0
	}
	return g.Size()
}

// Identity returns the compressed file's identity as of opening.
func (s *GzipStream) Identity() source.Identity { return s.id }

// Current returns the compressed file's identity now.
func (s *GzipStream) Current() (source.Identity, error) {
	return s.f.Current()
}

// Splits returns the checkpoints' plain offsets about target apart, once
// the walk is done.
func (s *GzipStream) Splits(target int64) []int64 {
	g, err := s.walked()
	if err != nil {
		return []int64{0}
	}
	return g.Splits(target)
}

// Backend returns "gzip".
func (s *GzipStream) Backend() string { return "gzip" }

// Table returns the encoding of the walk's table, once it is done (nil if
// it failed).
func (s *GzipStream) Table() []byte {
	g, err := s.walked()
	if err != nil {
		return nil
	}
	return g.Table()
}

// Covered returns the file's size when it was walked, once the walk is
// done.
func (s *GzipStream) Covered() int64 {
	g, err := s.walked()
	if err != nil {
		return 0
	}
	return g.Covered()
}

// Cut returns the table of a prefix of the file (see Gzip.Cut), once the
// walk is done.
func (s *GzipStream) Cut(plain, covered int64) ([]byte, bool) {
	g, err := s.walked()
	if err != nil {
		return nil, false
	}
	return g.Cut(plain, covered)
}

// FileAt reads the file's own bytes on disk, as of now.
func (s *GzipStream) FileAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }

// Close stops the walk and closes the file.
func (s *GzipStream) Close() error {
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	<-s.done
	return s.f.Close()
}
