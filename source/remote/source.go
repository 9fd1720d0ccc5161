package remote

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"

	"github.com/csvidx/csvidx/source"
)

// A Source is a remote object opened as a source.Source of a CSV's bytes:
// its reads are ranged GETs of the version opened (see Object), and a
// lookup's rows, asked for first (Prefetch), come in one round trip.
type Source struct {
	o      *Object
	head   []byte     // the object's first bytes, read by Open
	pieces pieceCache // bytes read for the reads to come
	ahead  readAhead  // a scan's windows, read ahead

	fetches  atomic.Int64 // round trips made for reads
	scanning atomic.Bool  // a scan's window was read: the reads are a scan's
	// sequential: the object is read front to back (Sequential), each read
	// of it, whatever its size, through the read-ahead blocks.
	sequential atomic.Bool
}

var (
	_ source.Source     = (*Source)(nil)
	_ source.Prefetcher = (*Source)(nil)
	_ source.Scanned    = (*Source)(nil)
)

const (
	// HeadBytes is how much of an object Open reads with its first GET:
	// what a lookup reads of a CSV's head (its header, the freshness
	// hash of its first 64 KiB).
	HeadBytes = 64 << 10
	// sourceHead is how much of an object OpenSource reads with its first
	// GET: twice HeadBytes, for a build, which reads the guessWindow of
	// 64 KiB after the header too (where a scan learns a row's usual
	// fields), past HeadBytes by the header's length: a round trip less.
	sourceHead = 2 * HeadBytes
	// rowPad is how far past a row's offset Prefetch reads: most rows end
	// before it; a longer one is read again, whole.
	rowPad = 4 << 10
	// keepBytes is how many bytes of pieces a Source keeps, the newest: a
	// batch's rows, rowPad each.
	keepBytes = 256 << 20
	// keepRead is the longest read whose bytes are kept: a scan's windows
	// are read once.
	keepRead = 1 << 20
	// minRead is the least a read that misses reads.
	minRead = 64 << 10
)

// OpenSource opens the object at url as a Source, reading its first
// sourceHead bytes.
func (c *Client) OpenSource(ctx context.Context, url string) (*Source, error) {
	o, head, err := c.Open(ctx, url, sourceHead)
	if err != nil {
		return nil, err
	}
	return newSource(o, head), nil
}

// newSource returns the Source of o, whose first bytes are head.
func newSource(o *Object, head []byte) *Source {
	s := &Source{o: o, head: head}
	s.pieces.limit = keepBytes
	return s
}

// Object returns the object the source reads.
func (s *Source) Object() *Object { return s.o }

// Name returns the object's URL.
func (s *Source) Name() string { return s.o.url }

// Size returns the object's size.
func (s *Source) Size() int64 { return s.o.size }

// Identity returns the object's size and ETag.
func (s *Source) Identity() source.Identity {
	etag, _ := s.o.ETag()
	return source.Identity{Size: s.o.size, ETag: etag, Perm: 0o644}
}

// Current returns the identity as of opening: every read is of that
// version (If-Match), or fails with ErrChanged.
func (s *Source) Current() (source.Identity, error) { return s.Identity(), nil }

// Splits returns cuts target bytes apart: a ranged GET starts anywhere.
func (s *Source) Splits(target int64) []int64 {
	target = max(target, 1)
	cuts := []int64{0}
	for off := target; off < s.o.size; off += target {
		cuts = append(cuts, off)
	}
	return cuts
}

// ReadAt reads the bytes [off, off+len(p)): from the head or a piece read
// before when one holds them all, else by a GET, of at least minRead
// bytes, whose bytes are kept when it is short (a reader that reads a
// range in small pieces, as the freshness check reads 64 KiB in pieces of
// 16 KiB, costs one round trip). A scan's window (a read of scanWindow or
// more) is read ahead: the reads of the next windows are sent with it; so
// are, once a scan began, its other reads of scanPiece or more (where a
// worker guesses a record's start, 64 KiB past its chunk's start).
func (s *Source) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if n, ok := s.cached(p, off); ok {
		return n, eof(n, len(p))
	}
	if h := int64(len(s.head)); off >= 0 && off < h { // the head's part, then the rest
		n := copy(p, s.head[off:])
		k, err := s.ReadAt(ctx, p[n:], h)
		return n + k, err
	}
	if len(p) >= scanWindow {
		s.scanning.Store(true)
	}
	if len(p) >= scanWindow || s.scanning.Load() && (len(p) >= scanPiece || s.sequential.Load()) {
		return s.ahead.read(ctx, s, p, off)
	}
	s.fetches.Add(1)
	bs, err := s.o.ReadRanges(ctx, []Range{{off, max(int64(len(p)), minRead)}})
	if err != nil {
		return 0, err
	}
	n := copy(p, bs[0])
	if len(bs[0]) <= keepRead {
		s.pieces.add(off, bs[0])
	}
	return n, eof(n, len(p))
}

// Prefetch reads the bytes at each of offs (a lookup's rows), rowPad of
// them from the byte before (which a row's reader reads too, to see that a
// line starts there), in one round trip, for the reads to come. Each row's
// bytes are kept, not the spans they were read in, whose gaps no one
// reads.
func (s *Source) Prefetch(offs []int64) {
	var rs []Range
	for _, off := range offs {
		if off = max(off-1, 0); off < s.o.size {
			if !s.holds(off, min(off+rowPad, s.o.size)) {
				rs = append(rs, Range{off, rowPad})
			}
		}
	}
	if len(rs) == 0 {
		return
	}
	s.fetches.Add(1)
	bs, err := s.o.ReadRanges(context.Background(), rs)
	if err != nil {
		return // the reads will fail, and say why
	}
	for i, r := range rs {
		s.pieces.add(r.Off, bytes.Clone(bs[i]))
	}
}

// Sequential says that the object is to be read front to back, in reads
// of any size (a backend's walk of a compressed file's frame headers):
// they go through the read-ahead blocks, a few megabytes at a time.
func (s *Source) Sequential() {
	s.sequential.Store(true)
	s.scanning.Store(true)
}

// WillScan says that a scan is about to read the object, front to back,
// in windows: its reads of scanPiece or more (where a worker guesses a
// record's start, before its first window) go through the read-ahead
// blocks from the first.
func (s *Source) WillScan() { s.scanning.Store(true) }

// PrefetchRanges reads the bytes of rs (a compressed file's frames that a
// lookup decodes), those not held already, in one round trip, for the
// reads to come, each kept whole.
func (s *Source) PrefetchRanges(rs []Range) {
	var need []Range
	for _, r := range rs {
		if end := min(r.Off+r.Len, s.o.size); r.Off < end && !s.holds(r.Off, end) {
			need = append(need, r)
		}
	}
	if len(need) == 0 {
		return
	}
	s.fetches.Add(1)
	bs, err := s.o.ReadRanges(context.Background(), need)
	if err != nil {
		return // the reads will fail, and say why
	}
	for i, r := range need {
		s.pieces.add(r.Off, bytes.Clone(bs[i]))
	}
}

// holds reports whether the head or a piece holds the bytes [off, end).
func (s *Source) holds(off, end int64) bool {
	if end <= int64(len(s.head)) {
		return true
	}
	_, ok := s.pieces.find(off, end)
	return ok
}

// cached copies the bytes [off, off+len(p)) into p from the head or a
// piece that holds them all, if there is one: n is how many there are
// (fewer at the object's end).
func (s *Source) cached(p []byte, off int64) (n int, ok bool) {
	end := min(off+int64(len(p)), s.o.size)
	if off < 0 || off > end {
		return 0, false
	}
	if end <= int64(len(s.head)) {
		return copy(p, s.head[off:end]), true
	}
	b, ok := s.pieces.find(off, end)
	if !ok {
		return 0, false
	}
	return copy(p, b), true
}

// keep keeps b, the bytes at off, for the reads to come.
func (s *Source) keep(off int64, b []byte) { s.pieces.add(off, b) }

// Fetches returns how many round trips the source made for its reads
// (each checked the object's version: see Object).
func (s *Source) Fetches() int64 { return s.fetches.Load() }

// Close drops the pieces kept and waits for the reads ahead.
func (s *Source) Close() error {
	s.ahead.close()
	s.pieces.reset()
	return nil
}

// eof returns io.EOF when a read of want bytes got n, fewer.
func eof(n, want int) error {
	if n < want {
		return io.EOF
	}
	return nil
}

// PrefetchRaw is PrefetchRanges of ranges given as {offset, length}, for
// package source's Raw of the object (source.RawPrefetcher).
func (s *Source) PrefetchRaw(ranges [][2]int64) {
	rs := make([]Range, len(ranges))
	for i, r := range ranges {
		rs[i] = Range{r[0], r[1]}
	}
	s.PrefetchRanges(rs)
}
