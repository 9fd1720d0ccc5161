package compressed

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sort"

	"github.com/klauspost/compress/flate"

	"github.com/csvidx/csvidx/source"
)

// A Gzip is a source.Source over a local plain gzip file (one member or
// several; BGZF is read by OpenBGZF). Its plain bytes are read by offset,
// each read inflating the spans that hold them from the checkpoints
// before them (see gzipwalk.go), found through the table of the
// checkpoints, with the last few spans inflated kept for the reads that
// follow.
type Gzip struct {
	name  string
	f     source.Raw      // the compressed file
	id    source.Identity // the compressed file's
	cps   []Checkpoint    // with the end (see WalkGzip)
	every int64           // the span the walk was asked for (see DecodeGzipTable)
	cache blockCache      // spans' plain bytes, by their checkpoints' indexes
}

var (
	_ source.Tabled     = (*Gzip)(nil)
	_ source.Prefetcher = (*Gzip)(nil)
)

// OpenGzip opens the gzip file at path, reading through table, the
// encoding of its checkpoints' table (see EncodeGzipTable), or when table
// is nil through a table it makes by walking the file (see WalkGzip), with
// checkpoints span plain bytes apart (DefaultSpan when 0). Through a
// table, the plain bytes are those the table covers, even if the file
// has grown since it was made.
func OpenGzip(path string, table []byte, span int64) (*Gzip, error) {
	if table == nil {
		return openGzip(path, nil, span, true)
	}
	cps, span, err := DecodeGzipTable(table)
	if err != nil {
		return nil, err
	}
	return openGzip(path, cps, span, false)
}

// ExtendGzip opens the gzip file at path as OpenGzip does, through table,
// the encoding of the checkpoints' table of a prefix of the file that
// ended at a member's end (the file as it was when the table was made),
// walking only what was appended since, which must start a gzip member
// (gzip -c more.csv >> f.csv.gz): the Gzip's table covers the whole file,
// and nothing of the prefix is inflated.
func ExtendGzip(path string, table []byte) (*Gzip, error) {
	cps, span, err := DecodeGzipTable(table)
	if err != nil {
		return nil, err
	}
	return openGzip(path, cps, span, true)
}

// openGzip opens the gzip file at path through cps, its checkpoints' table;
// when walk is set, cps is the table of a prefix of the file (nil: none),
// and the walk of the rest (with checkpoints span apart) completes it.
func openGzip(path string, cps []Checkpoint, span int64, walk bool) (*Gzip, error) {
	if span <= 0 {
		span = DefaultSpan
	}
	f, err := source.OpenRaw(path)
	if err != nil {
		return nil, err
	}
	if walk {
		if cps == nil {
			f.WillNeed(0, f.Size())
			cps, err = WalkGzip(f, f.Size(), path, span)
		} else {
			from := cps[len(cps)-1].Bit / 8
			f.WillNeed(from, f.Size()-from)
			cps, err = walkGzip(f, f.Size(), path, span, cps)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := checkSpans(cps, path); err != nil {
		f.Close()
		return nil, err
	}
	return &Gzip{name: path, f: f, id: f.Identity(), cps: cps, every: span}, nil
}

// checkSpans returns an error if a span of cps is too large to inflate
// whole for a read: more than MaxFrame plain bytes (a *FrameError), or
// more than twice that many compressed bytes.
func checkSpans(cps []Checkpoint, path string) error {
	for i := range len(cps) - 1 {
		if n := cps[i+1].Plain - cps[i].Plain; n > maxFrame {
			return &FrameError{path, n}
		}
		if n := cps[i+1].Bit/8 - cps[i].Bit/8; n > 2*maxFrame {
			return fmt.Errorf("%s has %d compressed bytes between two places where inflating can begin, and csvidx reads gzip at random only in spans of at most %d MiB: "+
				"recompress it (bgzip)", path, n, 2*maxFrame>>20)
		}
	}
	return nil
}

// Name returns the path the file was opened by.
func (g *Gzip) Name() string { return g.name }

// Size returns the size of the plain stream.
func (g *Gzip) Size() int64 { return g.cps[len(g.cps)-1].Plain }

// Checkpoints returns the checkpoints' table, with its end (see WalkGzip).
func (g *Gzip) Checkpoints() []Checkpoint { return g.cps }

// Identity returns the compressed file's identity as of opening.
func (g *Gzip) Identity() source.Identity { return g.id }

// Current returns the compressed file's identity now.
func (g *Gzip) Current() (source.Identity, error) {
	return g.f.Current()
}

// Splits returns the plain offsets of checkpoints about target bytes
// apart: a checkpoint is where inflating can begin.
func (g *Gzip) Splits(target int64) []int64 {
	cuts := []int64{0}
	for _, c := range g.cps[:len(g.cps)-1] {
		if c.Plain >= cuts[len(cuts)-1]+max(target, 1) {
			cuts = append(cuts, c.Plain)
		}
	}
	return cuts
}

// Backend returns the name of the backend that reads the file: "gzip".
func (g *Gzip) Backend() string { return "gzip" }

// Table returns the encoding of the checkpoints' table (see
// EncodeGzipTable).
func (g *Gzip) Table() []byte { return EncodeGzipTable(g.cps, g.every) }

// Covered returns the file's size when its checkpoints' table was made.
func (g *Gzip) Covered() int64 { return g.cps[len(g.cps)-1].Bit / 8 }

// Cut returns the table of the file as it was when it was its first
// covered bytes, whose plain bytes ended at plain: the checkpoints before
// plain and an end at (covered, plain), the very table a walk of those
// bytes makes (spans end at members' ends). ok is false unless a member
// ends at plain (the next non-empty one starts there, or the file's plain
// bytes end there) and covered lies past the checkpoint before, up to the
// next one (empty members may follow a member).
func (g *Gzip) Cut(plain, covered int64) (table []byte, ok bool) {
	i, found := slices.BinarySearchFunc(g.cps, plain, func(c Checkpoint, p int64) int { return cmp.Compare(c.Plain, p) })
	if !found || len(g.cps[i].Window) > 0 || covered*8 > g.cps[i].Bit || (i > 0 && covered*8 <= g.cps[i-1].Bit) {
		return nil, false
	}
	return EncodeGzipTable(append(slices.Clip(g.cps[:i]), Checkpoint{Bit: covered * 8, Plain: plain}), g.every), true
}

// FileAt reads the file's own bytes on disk, as of now.
func (g *Gzip) FileAt(p []byte, off int64) (int, error) { return g.f.ReadAt(p, off) }

// Prefetch inflates the spans that hold the plain offsets offs, on all
// cores at once, so that the reads of them that follow find them inflated
// (see prefetchPieces).
func (g *Gzip) Prefetch(offs []int64) {
	prefetchRaw(g.f, offs, g.Size(), g.spanAt, g.spanBytes)
	prefetchPieces(offs, g.Size(), g.spanAt, g.span)
}

// Close closes the file.
func (g *Gzip) Close() error { return g.f.Close() }

// ReadAt reads the plain bytes [off, off+len(p)), inflating the spans that
// hold them (or taking them from the few it keeps).
func (g *Gzip) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &CorruptError{g.name, 0, "a read before the start"}
	}
	return readPieces(p, off, g.Size(), g.spanAt, g.span)
}

// spanAt returns the span that holds plain offset off, in [0, Size), and
// where its plain bytes start and end.
func (g *Gzip) spanAt(off int64) (i int, start, end int64) {
	i = sort.Search(len(g.cps)-1, func(i int) bool { return g.cps[i+1].Plain > off })
	return i, g.cps[i].Plain, g.cps[i+1].Plain
}

// span returns the plain bytes of span i.
func (g *Gzip) span(i int) ([]byte, error) {
	return g.cache.load(i, g.inflateSpan)
}

// spanSlack is how many compressed bytes past a span's end a read of it
// takes: the inflater may look a few bits past a block's end before it
// gives the block's last bytes.
const spanSlack = 16

// spanBytes returns where span i's compressed bytes start and end in the
// file, with the slack an inflater reads past the span's end.
func (g *Gzip) spanBytes(i int) (from, to int64) {
	return g.cps[i].Bit / 8, min((g.cps[i+1].Bit+7)/8+spanSlack, g.cps[len(g.cps)-1].Bit/8)
}

// inflateSpan reads span i's compressed bytes and inflates them, from its
// member's header or from its checkpoint's window, checking them against
// the span's Sum.
func (g *Gzip) inflateSpan(i int) ([]byte, error) {
	at, next := g.cps[i], g.cps[i+1]
	from, to := g.spanBytes(i)
	comp := make([]byte, to-from)
	if _, err := g.f.ReadAt(comp, from); err != nil {
		if err == io.EOF {
			return nil, &CorruptError{g.name, from, "the file ends inside a span its table gives (it shrank?)"}
		}
		return nil, err
	}
	r := bytes.NewReader(comp)
	var fr io.Reader
	if len(at.Window) == 0 {
		if _, err := readGzipHeader(r); err != nil {
			return nil, &CorruptError{g.name, from, "no gzip member starts where its table says: " + err.Error()}
		}
		fr = flate.NewReaderOpts(r, flate.WithPartialBlock())
	} else {
		window, err := unpackWindow(at.Window)
		if err != nil {
			return nil, &CorruptError{g.name, from, "its table's window does not decode: " + err.Error()}
		}
		cp := flate.InflateCheckpoint{CompressedOffset: from, BitOffset: uint8(at.Bit % 8), Window: window}
		fr = flate.NewReaderOpts(r, flate.WithResumeFrom(cp), flate.WithPartialBlock())
	}
	plain := make([]byte, next.Plain-at.Plain)
	if _, err := io.ReadFull(fr, plain); err != nil {
		return nil, &CorruptError{g.name, from, "the span its table gives does not inflate: " + err.Error()}
	}
	if crc32.ChecksumIEEE(plain) != at.Sum {
		return nil, &CorruptError{g.name, from, "the span's checksum does not match its table's (the file changed?)"}
	}
	return plain, nil
}
