package compressed

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/flate"

	"github.com/csvidx/csvidx/source"
)

// A Framed is a source.Source over a local compressed file made of frames that
// decode alone: BGZF's members (bgzf.go) or zstd's frames (zstd.go). Its
// plain bytes are read by offset, each read decoding the frames that hold
// them, found through the table of the frames (a Block each), with the
// last few decoded kept for the reads that follow.
type Framed struct {
	backend string // "bgzf", "zstd"
	name    string
	f       source.Raw      // the compressed file
	id      source.Identity // the compressed file's
	blocks  []Block         // with the end (see ScanBGZF)
	cache   blockCache
	decode  func(s *Framed, i int, frame []byte) ([]byte, error) // frame i's plain bytes, checked against the frame's own checks
	flates  sync.Pool                                            // BGZF: flate readers, reset for each member
}

var _ source.Tabled = (*Framed)(nil)

// openFramed opens the compressed file at path through blocks, its frames'
// table, or when blocks is nil through the table of prefix's frames and of
// those that scan finds after them (see scanAfter). A frame too large to
// decode whole is a *FrameError.
func openFramed(path string, blocks, prefix []Block, scan func(io.ReaderAt, Block, int64, string) ([]Block, error)) (*Framed, error) {
	s, err := openFramedAny(path, blocks, prefix, scan)
	if err != nil {
		return nil, err
	}
	if err := checkFrames(s.blocks, path); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openFramedAny is openFramed, whatever the frames' sizes: for a
// ZstdStream, which decodes its frames as it goes.
func openFramedAny(path string, blocks, prefix []Block, scan func(io.ReaderAt, Block, int64, string) ([]Block, error)) (*Framed, error) {
	f, err := source.OpenRaw(path)
	if err != nil {
		return nil, err
	}
	if blocks == nil {
		if blocks, err = scanAfter(f, f.Size(), path, prefix, scan); err != nil {
			f.Close()
			return nil, err
		}
	}
	return &Framed{name: path, f: f, id: f.Identity(), blocks: blocks}, nil
}

// scanAfter returns the frames' table of the file r of size bytes at path,
// which starts with the file that prefix is the table of (with its end;
// nil for none): prefix's frames, then those that scan finds after them,
// from where prefix ends. Only the frames appended since prefix was made
// are walked.
func scanAfter(r source.Raw, size int64, path string, prefix []Block, scan func(io.ReaderAt, Block, int64, string) ([]Block, error)) ([]Block, error) {
	var from Block
	if prefix != nil {
		if len(prefix) == 0 {
			return nil, fmt.Errorf("%w: no end", errTable)
		}
		from, prefix = prefix[len(prefix)-1], prefix[:len(prefix)-1:len(prefix)-1]
	}
	if size < from.Comp {
		return nil, &CorruptError{path, size, fmt.Sprintf("the file ends before the %d bytes its table covers (it shrank?)", from.Comp)}
	}
	r.WillNeed(from.Comp, size-from.Comp)
	more, err := scan(r, from, size, path)
	if err != nil {
		return nil, err
	}
	return append(prefix, more...), nil
}

// MaxFrame is the most plain bytes a frame of a Framed source may hold: a
// read decodes a frame whole, into memory. zstd writes a whole file as one
// frame, which is read only from its start (a stream), not at random.
const MaxFrame = 64 << 20

// maxFrame is MaxFrame, which tests lower.
var maxFrame int64 = MaxFrame

// FrameError means a compressed file has a frame too large to decode
// whole for a read at random (see MaxFrame): zstd's one frame for a whole
// file, most often.
type FrameError struct {
	Path  string
	Plain int64 // the frame's plain bytes
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("%s has a frame of %d bytes, and csvidx reads compressed files at random only in frames of at most %d MiB: "+
		"recompress it in small frames (csvidx compress %s -o NEW, pzstd -p 2, or bgzip)", e.Path, e.Plain, maxFrame>>20, e.Path)
}

// checkFrames returns a *FrameError if a frame of blocks holds more than
// MaxFrame plain bytes.
func checkFrames(blocks []Block, path string) error {
	for i := range len(blocks) - 1 {
		if n := blocks[i+1].Plain - blocks[i].Plain; n > maxFrame {
			return &FrameError{path, n}
		}
	}
	return nil
}

// OpenBGZF opens the BGZF file at path, reading through blocks, its
// members' table (see ScanBGZF), or through a table it makes by walking
// the members' headers when blocks is nil.
func OpenBGZF(path string, blocks []Block) (*Framed, error) {
	s, err := openFramed(path, blocks, nil, scanBGZF)
	if err != nil {
		return nil, err
	}
	s.backend, s.decode = "bgzf", (*Framed).inflate
	return s, nil
}

// ExtendBGZF opens the BGZF file at path as OpenBGZF does, through prefix,
// the members' table of a prefix of the file (with its end, as ScanBGZF
// gave it when the file was that prefix), walking only the members
// appended since, which must start where the prefix ended (cat more.bgz >>
// f.bgz).
func ExtendBGZF(path string, prefix []Block) (*Framed, error) {
	s, err := openFramed(path, nil, prefix, scanBGZF)
	if err != nil {
		return nil, err
	}
	s.backend, s.decode = "bgzf", (*Framed).inflate
	return s, nil
}

// Name returns the path the file was opened by.
func (s *Framed) Name() string { return s.name }

// Size returns the size of the plain stream.
func (s *Framed) Size() int64 { return s.blocks[len(s.blocks)-1].Plain }

// Blocks returns the frames' table, with its end (see ScanBGZF).
func (s *Framed) Blocks() []Block { return s.blocks }

// Identity returns the compressed file's identity as of opening.
func (s *Framed) Identity() source.Identity { return s.id }

// Current returns the compressed file's identity now.
func (s *Framed) Current() (source.Identity, error) { return s.f.Current() }

// Splits returns the plain starts of frames about target bytes apart:
// a frame is where decoding can begin.
func (s *Framed) Splits(target int64) []int64 {
	cuts := []int64{0}
	for _, b := range s.blocks[:len(s.blocks)-1] {
		if b.Plain >= cuts[len(cuts)-1]+max(target, 1) {
			cuts = append(cuts, b.Plain)
		}
	}
	return cuts
}

// Backend returns the name of the backend that reads the file: "bgzf" or
// "zstd".
func (s *Framed) Backend() string { return s.backend }

// Table returns the encoding of the frames' table (see EncodeTable).
func (s *Framed) Table() []byte { return EncodeTable(s.blocks) }

// Covered returns the file's size when its frames' table was made.
func (s *Framed) Covered() int64 { return s.blocks[len(s.blocks)-1].Comp }

// Cut returns the table of the file as it was when it was its first
// covered bytes, whose plain bytes ended at plain: the frames before plain
// and an end at (covered, plain). ok is false unless a frame ends at plain
// and covered lies past its start, up to the next frame's (what follows a
// frame up to the next, an empty member or a skippable frame, belongs to
// it, so the file may have ended anywhere there).
func (s *Framed) Cut(plain, covered int64) (table []byte, ok bool) {
	i, found := slices.BinarySearchFunc(s.blocks, plain, func(b Block, p int64) int { return cmp.Compare(b.Plain, p) })
	if !found || covered > s.blocks[i].Comp || (i > 0 && covered <= s.blocks[i-1].Comp) {
		return nil, false
	}
	return EncodeTable(append(slices.Clip(s.blocks[:i]), Block{covered, plain})), true
}

// FileAt reads the file's own bytes on disk, as of now.
func (s *Framed) FileAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }

// Prefetch decodes the frames that hold the plain offsets offs, on all
// cores at once, so that the reads of them that follow find them decoded
// (see prefetchPieces).
func (s *Framed) Prefetch(offs []int64) {
	prefetchRaw(s.f, offs, s.Size(), s.frameAt, func(i int) (int64, int64) { return s.blocks[i].Comp, s.blocks[i+1].Comp })
	prefetchPieces(offs, s.Size(), s.frameAt, s.block)
}

// prefetchRaw asks raw, when it can read ranges at once (a remote file: a
// source.RawPrefetcher), for the compressed bytes of the pieces that hold
// the plain offsets offs (the rows of a lookup), and of the next piece
// when a row may run into it: one round trip before they are decoded.
// at gives a plain offset's piece (see readPieces), comp a piece's
// compressed bytes.
func prefetchRaw(raw source.Raw, offs []int64, size int64, at func(int64) (int, int64, int64), comp func(int) (from, to int64)) {
	rp, ok := raw.(source.RawPrefetcher)
	if !ok {
		return
	}
	var ranges [][2]int64
	last := -1
	for _, off := range offs {
		if off < 0 || off >= size {
			continue
		}
		for _, o := range []int64{off, min(off+4096, size-1)} {
			if i, _, _ := at(o); i != last {
				from, to := comp(i)
				ranges = append(ranges, [2]int64{from, to - from})
				last = i
			}
		}
	}
	rp.PrefetchRaw(ranges)
}

// Close closes the file.
func (s *Framed) Close() error { return s.f.Close() }

// ReadAt reads the plain bytes [off, off+len(p)), decoding the frames
// that hold them (or taking them from the few it keeps).
func (s *Framed) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &CorruptError{s.name, 0, "a read before the start"}
	}
	return readPieces(p, off, s.Size(), s.frameAt, s.block)
}

// frameAt returns the frame that holds plain offset off, in [0, Size), and
// where its plain bytes start and end.
func (s *Framed) frameAt(off int64) (i int, start, end int64) {
	i = blockAt(s.blocks, off)
	return i, s.blocks[i].Plain, s.blocks[i+1].Plain
}

// readPieces reads the plain bytes [off, off+len(p)) of a stream of size
// plain bytes made of pieces that decode alone (frames, or a gzip file's
// spans), as io.ReaderAt does: at gives the piece that holds an offset in
// [0, size), and where its plain bytes start and end; load gives its
// plain bytes.
func readPieces(p []byte, off, size int64, at func(int64) (int, int64, int64), load func(int) ([]byte, error)) (int, error) {
	n := 0
	for n < len(p) && off < size {
		i, start, _ := at(off)
		plain, err := load(i)
		if err != nil {
			return n, err
		}
		c := copy(p[n:], plain[off-start:])
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// prefetchPieces loads the pieces of a stream of size plain bytes (see
// readPieces) that hold the plain offsets offs, on all cores at once: as
// many as half the cache keeps (blockCache), in the order of offs. A piece
// that does not decode is left for the read to report.
func prefetchPieces(offs []int64, size int64, at func(int64) (int, int64, int64), load func(int) ([]byte, error)) {
	var pieces []int
	seen := map[int]bool{}
	bytes := int64(0)
	for _, off := range offs {
		if off < 0 || off >= size {
			continue
		}
		i, start, end := at(off)
		if seen[i] {
			continue
		}
		bytes += end - start
		if len(pieces) == cachedBlocks/2 || bytes > cachedBytes/2 {
			break
		}
		seen[i] = true
		pieces = append(pieces, i)
	}
	if len(pieces) < 2 {
		return
	}
	next := make(chan int, len(pieces))
	for _, i := range pieces {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(pieces)) {
		wg.Go(func() {
			for i := range next {
				_, _ = load(i) // an error is the read's to report
			}
		})
	}
	wg.Wait()
}

// block returns the plain bytes of frame i.
func (s *Framed) block(i int) ([]byte, error) {
	return s.cache.load(i, s.decodeBlock)
}

// decodeBlock reads frame i and decodes it.
func (s *Framed) decodeBlock(i int) ([]byte, error) {
	at, next := s.blocks[i], s.blocks[i+1]
	frame := make([]byte, next.Comp-at.Comp)
	if _, err := s.f.ReadAt(frame, at.Comp); err != nil {
		if err == io.EOF {
			return nil, &CorruptError{s.name, at.Comp, "the file ends inside a block (it shrank?)"}
		}
		return nil, err
	}
	b, err := s.decode(s, i, frame)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != next.Plain-at.Plain {
		return nil, &CorruptError{s.name, at.Comp, "the block's size is not the one the index says"}
	}
	return b, nil
}

// inflate inflates BGZF member i, comp (with any empty members after it),
// checking its header against the table and its plain bytes against its
// CRC-32 and ISIZE.
func (s *Framed) inflate(i int, comp []byte) ([]byte, error) {
	at, next := s.blocks[i], s.blocks[i+1]
	bsize, err := bgzfBlockSize(comp)
	if err != nil || bsize > len(comp) {
		return nil, &CorruptError{s.name, at.Comp, "the block is not where the index says"}
	}
	member := comp[:bsize]
	xlen := int(binary.LittleEndian.Uint16(member[10:]))
	crc, isize := trailerOf(member)
	want := next.Plain - at.Plain
	if int64(isize) != want {
		return nil, &CorruptError{s.name, at.Comp, "the block's size is not the one the index says"}
	}
	plain := make([]byte, want)
	fr, _ := s.flates.Get().(io.ReadCloser)
	src := bytes.NewReader(member[12+xlen : len(member)-bgzfTrailer])
	if fr == nil {
		fr = flate.NewReader(src)
	} else {
		fr.(flate.Resetter).Reset(src, nil)
	}
	defer s.flates.Put(fr)
	if _, err := io.ReadFull(fr, plain); err != nil {
		return nil, &CorruptError{s.name, at.Comp, "the block does not inflate: " + err.Error()}
	}
	var extra [1]byte
	if n, _ := fr.Read(extra[:]); n != 0 || crc32.ChecksumIEEE(plain) != crc {
		return nil, &CorruptError{s.name, at.Comp, "the block's checksum does not match"}
	}
	return plain, nil
}

// blockCache keeps the plain bytes of the last frames decoded, for reads
// of neighbouring rows and for the frames a lookup asks for ahead (see
// Framed.Prefetch): up to cachedBlocks of them and cachedBytes in all,
// round robin. A frame being decoded is
// decoded once, whoever else asks for it meanwhile (two workers of a scan
// whose windows share a frame wait for one decoding).
type blockCache struct {
	mu       sync.Mutex
	ids      [cachedBlocks]int
	bufs     [cachedBlocks][]byte
	next     int // the place of the next frame kept
	bytes    int // of bufs
	inflight map[int]*decoding
}

// keep keeps frame i's plain bytes b in the next place, and drops the
// oldest others while the cache holds more than cachedBytes. The caller
// holds mu.
func (c *blockCache) keep(i int, b []byte) {
	if old := c.bufs[c.next]; old != nil {
		c.bytes -= len(old)
	}
	c.ids[c.next], c.bufs[c.next] = i, b
	c.bytes += len(b)
	newest := c.next
	c.next = (c.next + 1) % cachedBlocks
	for j := c.next; c.bytes > cachedBytes && j != newest; j = (j + 1) % cachedBlocks {
		if c.bufs[j] != nil { // the oldest kept, in the ring's order
			c.bytes -= len(c.bufs[j])
			c.bufs[j] = nil
		}
	}
}

// A decoding is a frame being decoded: done closes when b or err is set.
type decoding struct {
	done chan struct{}
	b    []byte
	err  error
}

const (
	cachedBlocks = 64
	cachedBytes  = 32 << 20
)

// load returns frame i's plain bytes: kept, being decoded (it waits), or
// decoded by decode now.
func (c *blockCache) load(i int, decode func(int) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	for j := range cachedBlocks {
		if c.bufs[j] != nil && c.ids[j] == i {
			b := c.bufs[j]
			c.mu.Unlock()
			return b, nil
		}
	}
	if d, ok := c.inflight[i]; ok {
		c.mu.Unlock()
		<-d.done
		return d.b, d.err
	}
	d := &decoding{done: make(chan struct{})}
	if c.inflight == nil {
		c.inflight = map[int]*decoding{}
	}
	c.inflight[i] = d
	c.mu.Unlock()

	d.b, d.err = decode(i)
	c.mu.Lock()
	delete(c.inflight, i)
	if d.err == nil {
		c.keep(i, d.b)
	}
	c.mu.Unlock()
	close(d.done)
	return d.b, d.err
}
