package compressed

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/flate"
)

// Plain gzip (RFC 1952) is one deflate stream a member, and gzip, pigz and
// most exporters write a whole file as one member: unlike BGZF's, a
// member cannot be cut into pieces that inflate alone, since every
// deflate block may copy from the 32 KiB of plain bytes before it. So one
// serial pass over the file (the walk) inflates it all, checking each
// member's CRC-32 and ISIZE, and records checkpoints about a span of plain
// bytes apart: where a member starts, which inflates alone, and the ends
// of deflate blocks inside members, each with its window, the 32 KiB of
// plain bytes before it. A read at random resumes inflating at the
// checkpoint at or before its offset, from the window, and inflates one
// span, which it checks against the CRC-32 of that span the walk
// recorded: a damaged file, or one replaced since, is an error, never
// other bytes.
//
// A member:
//
//	off  size  field
//	0    4     1f 8b 08 FLG: gzip, deflate, flags
//	4    6     MTIME, XFL, OS
//	10         FLG's optional fields, in order: FEXTRA (XLEN, 2 bytes,
//	           then XLEN bytes), FNAME and FCOMMENT (each up to a zero
//	           byte), FHCRC (the low 16 bits of the header's CRC-32)
//	...        the deflate stream, its last block marked final
//	-8   4     CRC-32 of the plain bytes
//	-4   4     ISIZE, the plain bytes' length modulo 2^32
//
// A file is members one after the other (gzip -c b >> f.gz appends one),
// with nothing after the last.

// DefaultSpan is how many plain bytes a walk puts between checkpoints, at
// least: a read at random inflates up to a span, and the table keeps a
// compressed window of 32 KiB a span (see gziptable.go).
const DefaultSpan = 1 << 20

// Checkpoints are at the ends of deflate blocks, and a block's plain size
// has no bound in the format: a span holds more than the span asked for
// by as much as the block that crosses its end holds (zlib's and pigz's
// blocks hold at most a few MiB even of repeated bytes). A span of more
// than maxFrame plain bytes (MaxFrame), or of more than twice that many
// compressed bytes (its member's header, or empty members), is a
// *FrameError: a read decodes a span whole into memory.

// WalkGzip inflates the gzip file r of size bytes, member after member,
// checking each one's CRC-32 and ISIZE, and returns its checkpoints: each
// member's start but those of empty members, and the first end of a
// deflate block span plain bytes or more after the checkpoint before, with
// a last Checkpoint, the end, holding the file's size in bits and the
// plain stream's size. Damaged data, a truncated file, and bytes after the
// last member that do not start another are *CorruptErrors.
func WalkGzip(r io.ReaderAt, size int64, path string, span int64) ([]Checkpoint, error) {
	if size == 0 {
		return nil, &CorruptError{path, 0, "the file is empty, not gzip"}
	}
	return walkGzip(r, size, path, span, []Checkpoint{{}})
}

// walkGzip walks the gzip file r of size bytes as WalkGzip does, from the
// end of prefix on (a table of a prefix of the file, whose end is on a
// member's boundary), and returns prefix's checkpoints, then the walk's,
// then the end.
func walkGzip(r io.ReaderAt, size int64, path string, span int64, prefix []Checkpoint) ([]Checkpoint, error) {
	return walkGzipTo(r, size, path, span, prefix, nil)
}

// walkGzipTo is walkGzip, handing the plain bytes to out, when set, as they
// are inflated, before their member's checksum is checked (the walk's
// error says whether they were the file's): p, at its plain offset at,
// becomes out's, which returns the buffer to inflate into next, of 256 KiB
// at least. An error from out stops the walk.
func walkGzipTo(r io.ReaderAt, size int64, path string, span int64, prefix []Checkpoint, out func(p []byte, at int64) ([]byte, error)) ([]Checkpoint, error) {
	end := prefix[len(prefix)-1]
	from := end.Bit / 8
	if size < from {
		return nil, &CorruptError{path, size, fmt.Sprintf("the file ends before the %d bytes its table covers (it shrank?)", from)}
	}
	src := io.NewSectionReader(r, 0, size)
	if _, err := src.Seek(from, io.SeekStart); err != nil {
		return nil, err
	}
	w := &gzipWalk{
		path: path, span: max(span, 1), src: src, in: bufio.NewReaderSize(src, 256<<10),
		cps: slices.Clip(prefix[:len(prefix)-1]), next: len(prefix) - 1, out: out,
		pack: windowPacker{sem: make(chan struct{}, runtime.GOMAXPROCS(0)), done: map[int64][]byte{}},
	}
	defer w.pack.wg.Wait()
	off, plain := from, end.Plain
	buf := make([]byte, 256<<10)
	for off < size {
		var err error
		if off, plain, err = w.member(off, from, plain, &buf); err != nil {
			return nil, err
		}
	}
	w.closeSpan()
	if err := w.pack.wait(w.cps); err != nil {
		return nil, err
	}
	return append(w.cps, Checkpoint{Bit: off * 8, Plain: plain}), nil
}

// A gzipWalk is the state of a walk (see walkGzip).
type gzipWalk struct {
	path string
	span int64
	src  *io.SectionReader // the file, read by in
	in   *bufio.Reader
	cps  []Checkpoint // the table so far, without its end
	pack windowPacker
	out  func(p []byte, at int64) ([]byte, error) // given the plain bytes, if set (see walkGzipTo)

	// The span whose Sum the plain bytes go to is cps[next-1], when open.
	next int
	open bool
	sum  uint32

	// Of the member being inflated:
	data  int64 // where its deflate stream starts
	first int64 // where its plain bytes start
	end   int64 // where its deflate stream ends, once its last block is inflated
}

// member walks the member at off, whose plain bytes start at plain, with
// *buf for them (replaced by the one out gives back), and returns where the
// next one starts in the file and in the plain stream. The walk began at
// from.
func (w *gzipWalk) member(off, from, plain int64, buf *[]byte) (next, nextPlain int64, err error) {
	if err := w.seek(off); err != nil {
		return 0, 0, err
	}
	hlen, err := readGzipHeader(w.in)
	switch {
	case errors.Is(err, errNotGzip) && off == 0:
		return 0, 0, &CorruptError{w.path, off, "not gzip"}
	case errors.Is(err, errNotGzip) && off == from:
		return 0, 0, &CorruptError{w.path, off, "the bytes after the part the table covers do not start a gzip member"}
	case errors.Is(err, errNotGzip):
		return 0, 0, &CorruptError{w.path, off, "bytes after the last gzip member that do not start another (trailing garbage)"}
	case err != nil:
		return 0, 0, &CorruptError{w.path, off, err.Error()}
	}
	w.data, w.first, w.end = off+hlen, plain, -1
	w.cps = append(w.cps, Checkpoint{Bit: off * 8, Plain: plain}) // taken back if the member is empty (see below)
	fr := flate.NewReaderOpts(w.in, flate.WithEobCallback(w.blockEnd))
	crc, n := uint32(0), int64(0)
	for {
		k, err := fr.Read(*buf)
		got := (*buf)[:k]
		w.hash(got, plain+n)
		crc = crc32.Update(crc, crc32.IEEETable, got)
		if w.out != nil && k > 0 {
			next, err := w.out(got, plain+n)
			if err != nil {
				return 0, 0, err
			}
			*buf = next[:cap(next)]
		}
		n += int64(k)
		if long := plain + n - w.cps[len(w.cps)-1].Plain; long > maxFrame {
			return 0, 0, &FrameError{w.path, long}
		}
		if err == io.EOF {
			break
		}
		var bad flate.CorruptInputError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return 0, 0, &CorruptError{w.path, off, "the file ends inside a gzip member"}
		case errors.As(err, &bad):
			return 0, 0, &CorruptError{w.path, w.data + int64(bad), "the gzip member does not inflate"}
		case err != nil:
			return 0, 0, &CorruptError{w.path, off, "the gzip member does not inflate: " + err.Error()}
		}
	}
	if w.cps[len(w.cps)-1].Plain == plain+n {
		w.cps = w.cps[:len(w.cps)-1] // an empty member's start, or a block's end before only empty blocks
	}
	if w.end < 0 {
		return 0, 0, &CorruptError{w.path, off, "the gzip member's deflate stream ends without its last block"}
	}
	if err := w.seek(w.end); err != nil {
		return 0, 0, err
	}
	var trailer [bgzfTrailer]byte
	if _, err := io.ReadFull(w.in, trailer[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, 0, &CorruptError{w.path, off, "the file ends inside a gzip member's trailer"}
		}
		return 0, 0, err
	}
	if wantCRC, isize := trailerOf(trailer[:]); crc != wantCRC || uint32(n) != isize {
		return 0, 0, &CorruptError{w.path, off, "the gzip member's checksum or size does not match its plain bytes"}
	}
	return w.end + bgzfTrailer, plain + n, nil
}

// blockEnd is called by the inflater at the end of each deflate block of
// the member being walked: at the last, it notes where the deflate stream
// ends; at others, it takes a checkpoint when the span since the last one
// is long enough, keeping the window compressed.
func (w *gzipWalk) blockEnd(cp flate.InflateCheckpoint) {
	bit := (w.data+cp.CompressedOffset)*8 + int64(cp.BitOffset)
	if cp.Final {
		w.end = (bit + 7) / 8
		return
	}
	plain := w.first + cp.UncompressedOffset
	if plain < w.cps[len(w.cps)-1].Plain+w.span {
		return
	}
	w.pack.add(bit, cp.Window)
	w.cps = append(w.cps, Checkpoint{Bit: bit, Plain: plain})
}

// hash adds p, the plain bytes at plain offset at, to the Sums of the
// spans they fall in. The checkpoints that end those spans are taken
// before their bytes come (the inflater calls blockEnd before it gives the
// block's last bytes), so a span is summed whole when the first byte past
// it comes, or the walk ends.
func (w *gzipWalk) hash(p []byte, at int64) {
	for len(p) > 0 {
		for w.next < len(w.cps) && w.cps[w.next].Plain <= at {
			w.closeSpan()
			w.next, w.open, w.sum = w.next+1, true, 0
		}
		k := len(p)
		if w.next < len(w.cps) {
			k = int(min(int64(k), w.cps[w.next].Plain-at))
		}
		w.sum = crc32.Update(w.sum, crc32.IEEETable, p[:k])
		p, at = p[k:], at+int64(k)
	}
}

// closeSpan sets the Sum of the span being summed, if any.
func (w *gzipWalk) closeSpan() {
	if w.open {
		w.cps[w.next-1].Sum = w.sum
	}
}

// seek moves the walk's reading to the file's byte off, which must not be
// before the bytes the inflater took: inflating reads no byte past a
// deflate stream's end, so it is where the reading is, for a trailer and
// the member after it.
func (w *gzipWalk) seek(off int64) error {
	at, err := w.src.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	at -= int64(w.in.Buffered())
	if off < at {
		return fmt.Errorf("%s: the walk is at byte %d, past %d (a bug)", w.path, at, off)
	}
	if off-at <= int64(w.in.Buffered()) {
		_, err := w.in.Discard(int(off - at))
		return err
	}
	if _, err := w.src.Seek(off, io.SeekStart); err != nil {
		return err
	}
	w.in.Reset(w.src)
	return nil
}

// A windowPacker compresses the windows of a walk's checkpoints (see
// packWindow) on other goroutines while the walk inflates on, as many at
// once as sem holds, keeping them by the checkpoints' Bits until wait (a
// checkpoint may be taken back after its window was added).
type windowPacker struct {
	wg   sync.WaitGroup
	sem  chan struct{}
	mu   sync.Mutex
	done map[int64][]byte
	err  error
}

// add compresses a copy of window, the window of the checkpoint at bit,
// once a place is free.
func (p *windowPacker) add(bit int64, window []byte) {
	window = append([]byte(nil), window...) // the inflater's, only until the callback returns
	p.sem <- struct{}{}
	p.wg.Go(func() {
		defer func() { <-p.sem }()
		packed, err := packWindow(window)
		p.mu.Lock()
		p.done[bit], p.err = packed, errors.Join(p.err, err)
		p.mu.Unlock()
	})
}

// wait waits for the windows added, and gives each to its checkpoint in
// cps (no member starts where a block ends, so the Bits of those without
// a window are not among them).
func (p *windowPacker) wait(cps []Checkpoint) error {
	p.wg.Wait()
	for i := range cps {
		if w, ok := p.done[cps[i].Bit]; ok {
			cps[i].Window = w
		}
	}
	return p.err
}

// errNotGzip means bytes that should start a gzip member do not start
// with its magic, 1f 8b.
var errNotGzip = errors.New("not a gzip member")

// readGzipHeader reads a gzip member's header from r and returns its
// length: errNotGzip when r does not start with the magic, another error
// when the header is malformed or ends early.
func readGzipHeader(r io.ByteReader) (int64, error) {
	h := headerReader{r: r}
	var fixed [10]byte
	for i := range fixed {
		fixed[i] = h.byte()
		if i < 2 && h.err == nil && fixed[i] != "\x1f\x8b"[i] {
			return 0, errNotGzip
		}
	}
	flg := fixed[3]
	switch {
	case h.err != nil:
		return 0, h.err
	case fixed[2] != 8:
		return 0, fmt.Errorf("a gzip member of compression method %d, not deflate", fixed[2])
	case flg&0xe0 != 0:
		return 0, fmt.Errorf("a gzip member with reserved flags set (%#x)", flg)
	}
	if flg&gzipExtra != 0 {
		xlen := int(h.byte()) | int(h.byte())<<8
		for range xlen {
			h.byte()
		}
	}
	for _, f := range []byte{gzipName, gzipComment} {
		if flg&f != 0 {
			for h.byte() != 0 && h.err == nil {
			}
		}
	}
	if flg&gzipHCRC != 0 {
		want := uint16(h.crc)
		if got := uint16(h.byte()) | uint16(h.byte())<<8; got != want && h.err == nil {
			return 0, errors.New("a gzip member's header does not match its CRC-16")
		}
	}
	return h.n, h.err
}

// The flags of a gzip member's header (FLG) that say which optional
// fields follow its fixed part.
const (
	gzipHCRC    = 1 << 1
	gzipExtra   = 1 << 2
	gzipName    = 1 << 3
	gzipComment = 1 << 4
)

// A headerReader reads a gzip header's bytes, counting them and summing
// them (CRC-32); err is set, and every byte read is 0, once r ends.
type headerReader struct {
	r   io.ByteReader
	n   int64
	crc uint32
	err error
}

// byte reads a byte.
func (h *headerReader) byte() byte {
	if h.err != nil {
		return 0
	}
	c, err := h.r.ReadByte()
	if err != nil {
		h.err = errors.New("the file ends inside a gzip member's header")
		if !errors.Is(err, io.EOF) {
			h.err = err
		}
		return 0
	}
	h.n++
	h.crc = crc32.Update(h.crc, crc32.IEEETable, []byte{c})
	return c
}
