package chunked

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/csvidx/csvidx/internal/mapping"
)

// An Input hands a scan the bytes of a CSV a window at a time (see the
// package documentation, "Inputs and windows"). Its methods may be called
// from several goroutines at once.
type Input interface {
	// Size returns the input's length in bytes.
	Size() int
	// Window returns a window holding bytes [off, off+n) of the input, or
	// up to its end when that comes first: Data holds the input's bytes
	// from Base on, with Base <= off and Base+len(Data) >= min(off+n,
	// Size()). It may hold more than asked. The bytes are the caller's to
	// read until it hands the window to Release.
	Window(off, n int) (Window, error)
	// Release takes back a window that Window returned, whose bytes the
	// caller no longer reads (a pooled buffer may then be reused).
	Release(w Window)
}

// A Window is a piece of an [Input]: the bytes from offset Base on.
type Window struct {
	Data []byte // the bytes
	Base int    // the input offset of Data[0]
}

// End returns the input offset just past the window's bytes.
func (w Window) End() int { return w.Base + len(w.Data) }

// Mapped is the Input of a CSV held in memory, usually a mapping of the
// whole file: its one window is all of Data, at offset 0, so that a scan
// reads it in place, with the absolute positions of a slice.
type Mapped struct {
	// Data is the CSV.
	Data []byte
	// Map is Data's mapping, if it is one (nil otherwise): the scan
	// populates it ahead of reading, and a worker that faults on it (the
	// file shrank) fails with mapping.ErrFault instead of crashing.
	Map *mapping.Map
}

// Size returns len(m.Data).
func (m *Mapped) Size() int { return len(m.Data) }

// Window returns all of m.Data, whatever is asked.
func (m *Mapped) Window(off, n int) (Window, error) { return Window{Data: m.Data}, nil }

// Release does nothing: m's window is its data.
func (m *Mapped) Release(Window) {}

// ErrShortRead means that an input gave fewer bytes than its size says it
// has: the source shrank, or lied about its size.
var ErrShortRead = errors.New("the source ended before the input's size: it shrank")

// maxPooled is the largest buffer a ReaderInput keeps for reuse (a scan's
// window, see defaultWindow, with room to spare), and maxFree how many it
// keeps: a window doubled for a record of many MiB is left to the garbage
// collector.
const (
	maxPooled = defaultWindow + guessWindow
	maxFree   = 2 * maxPerCore
)

// ReaderInput is an Input that reads each window from an io.ReaderAt
// into a buffer of its own, taken from a small free list that Release
// fills again: for a source that cannot hand out one slice of the whole
// CSV (a compressed file whose ReadAt serves uncompressed offsets, a
// remote object).
type ReaderInput struct {
	r     io.ReaderAt
	size  int
	known func() (int64, bool) // of a StreamInput: its size, once known

	mu   sync.Mutex
	free [][]byte // buffers released, for windows to come
}

// NewReaderAt returns the Input of the size bytes that r holds from offset
// 0 on. r's ReadAt is called from several goroutines at once, as the
// io.ReaderAt contract allows.
func NewReaderAt(r io.ReaderAt, size int64) *ReaderInput {
	return &ReaderInput{r: r, size: int(max(0, size))}
}

// Size returns the input's size, as given to NewReaderAt; of a
// StreamInput, its size once known, else math.MaxInt.
func (in *ReaderInput) Size() int {
	if in.known == nil {
		return in.size
	}
	if n, ok := in.known(); ok {
		return int(n)
	}
	return math.MaxInt
}

// Window reads bytes [off, min(off+n, Size())) into a buffer, with Base
// off. An error from ReadAt is returned as it is (the source's, which
// names it), and ErrShortRead when the source ends before Size; a
// StreamInput's read that comes short at io.EOF once its size is known
// is its end.
func (in *ReaderInput) Window(off, n int) (Window, error) {
	size := in.Size()
	if off < 0 || off > size || n < 0 {
		return Window{}, fmt.Errorf("chunked: window [%d, +%d) of an input of %d bytes", off, n, size)
	}
	n = min(n, size-off)
	buf := in.get(n)
	k, err := in.r.ReadAt(buf, int64(off))
	switch {
	case k == n:
		return Window{Data: buf, Base: off}, nil // io.EOF with all n bytes is no error
	case errors.Is(err, io.EOF) && in.known != nil && in.Size() != math.MaxInt:
		return Window{Data: buf[:k], Base: off}, nil // a stream's end
	case err != nil && !errors.Is(err, io.EOF):
		in.put(buf)
		return Window{}, err // the source's own error, which says what is wrong with it
	}
	in.put(buf)
	return Window{}, fmt.Errorf("chunked: reading %d bytes at %d: got %d: %w", n, off, k, ErrShortRead)
}

// Release keeps w's buffer for a window to come.
func (in *ReaderInput) Release(w Window) {
	if w.Data != nil {
		in.put(w.Data)
	}
}

// get returns a buffer of n bytes: the smallest free one large enough, if
// any, so that a guess's small window does not take a scan's large one.
func (in *ReaderInput) get(n int) []byte {
	in.mu.Lock()
	best := -1
	for i, b := range in.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(in.free[best])) {
			best = i
		}
	}
	var b []byte
	if best >= 0 {
		last := len(in.free) - 1
		b = in.free[best]
		in.free[best], in.free[last] = in.free[last], nil
		in.free = in.free[:last]
	}
	in.mu.Unlock()
	if b == nil {
		return make([]byte, n)
	}
	return b[:n]
}

// put keeps b for get, unless too large or enough are kept.
func (in *ReaderInput) put(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooled {
		return
	}
	in.mu.Lock()
	if len(in.free) < maxFree {
		in.free = append(in.free, b[:0])
	}
	in.mu.Unlock()
}

// A Streamed input is one whose size is known only once it has been read
// to its end: a compressed file decoded as it is read, whose decoder finds
// where it ends. Size returns that size when it is known, else a bound no
// offset reaches; Known says which. A scan reads it in one goroutine,
// front to back (see Scan.RunKeys), asking for windows from about where
// the last one ended: a window past the end holds fewer bytes than asked,
// and Size is then known.
type Streamed interface {
	Input
	Known() bool
}

// StreamInput is a ReaderInput over a source whose size is known only at
// its end (see Streamed).
type StreamInput struct {
	*ReaderInput
}

// NewStreamReaderAt returns the Input of the bytes that r holds from
// offset 0 on, which known tells the number of once it is known.
func NewStreamReaderAt(r io.ReaderAt, known func() (int64, bool)) *StreamInput {
	return &StreamInput{&ReaderInput{r: r, size: math.MaxInt, known: known}}
}

// Known reports whether the input's size is known.
func (in *StreamInput) Known() bool {
	_, ok := in.known()
	return ok
}
