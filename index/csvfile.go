package index

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/source"
)

// csvFile is a CSV as the readers and writers of its index work on it:
// its source, mapped, and the bytes worked on, all of them or, for
// a verify of the part an index covers, a prefix (size of them).
// Copies (a prefix's) share the source: release on one releases the
// bytes of all, so only a build, which makes none, releases.
type csvFile struct {
	src      source.Source
	mem      source.Mapped  // src when it is mapped, else nil
	data     []byte         // mem.Bytes(), or a prefix; nil once released, or when not mapped
	size     int            // the bytes worked on: len(data) until released, when mapped
	head     []byte         // data, or when not mapped the CSV's first records (see openSource)
	grown    int64          // a compressed file's bytes appended since its table was made, not read (see openIndexed)
	fileSize int64          // of a prefix, the compressed file's size when it ended there, if known (see sourceSection)
	walking  source.Walking // src, when it is walked as it is read, until the scan that reads it ends (size is 0 until then, unless known from its start)

	releaseAfterScan bool // a build that needs no byte of the CSV once scanned, so may release it during the sort
}

// mapped returns the csvFile of a mapped source.
func mapped(m source.Mapped) *csvFile {
	return &csvFile{src: m, mem: m, data: m.Bytes(), size: len(m.Bytes()), head: m.Bytes()}
}

// openSource opens the CSV at path: mapped (see source.Open), or, when its source is
// not mapped (a compressed file), as a csvFile without data whose head
// holds its first two records (or all of it) as delim cuts them: what a
// build reads of it before the scan, which reads it a window at a time.
func openSource(path string, advice mapping.Advice, delim byte) (*csvFile, error) {
	src, err := source.Open(path, advice)
	if err != nil {
		return nil, err
	}
	return fromSource(src, delim, true)
}

// openBuilt opens the CSV at path for a build, as openSource does, but a
// compressed file whose table takes decoding all of it (plain gzip) as a
// source.Walking, decoded as the build's scan reads it: its size is then
// known once the scan is done (see scanDone). With plainFrom, a compressed
// file's plain bytes are read from that plain file (see
// BuildOptions.PlainFrom).
func openBuilt(path string, advice mapping.Advice, delim byte, o source.WalkOptions, plainFrom string) (*csvFile, error) {
	if plainFrom != "" {
		return openBeside(path, plainFrom, advice, delim)
	}
	src, err := source.OpenWalking(path, advice, o)
	if err != nil {
		return nil, err
	}
	return fromSource(src, delim, true)
}

// openBeside opens the compressed CSV at path, whose frames' table its
// backend makes without decoding it (not plain gzip), with its plain bytes
// read from the plain file at plainFrom (see source.Beside).
func openBeside(path, plainFrom string, advice mapping.Advice, delim byte) (*csvFile, error) {
	src, err := source.Open(path, advice)
	if err != nil {
		return nil, err
	}
	t, ok := src.(source.Tabled)
	if _, walks := src.(source.Walking); !ok || walks {
		src.Close()
		return nil, fmt.Errorf("%s is not a compressed file of frames, whose plain bytes could be read from %s", path, plainFrom)
	}
	plain, err := source.Open(plainFrom, advice)
	if err != nil {
		t.Close()
		return nil, err
	}
	if _, ok := plain.(source.Mapped); !ok {
		plain.Close()
		t.Close()
		return nil, fmt.Errorf("%s is not a plain file, to read %s's plain bytes from", plainFrom, path)
	}
	b, err := source.Beside(t, plain)
	if err != nil {
		plain.Close()
		t.Close()
		return nil, err
	}
	return fromSource(b, delim, true)
}

// fromSource returns the csvFile of src (see openSource), with its head
// read when withHead (a build's, not a lookup's), closing src on an error.
func fromSource(src source.Source, delim byte, withHead bool) (*csvFile, error) {
	if m, ok := src.(source.Mapped); ok {
		return mapped(m), nil
	}
	c := &csvFile{src: src}
	if w, ok := src.(source.Walking); ok {
		c.walking = w
		if n, ok := w.Known(); ok {
			c.size = int(n) // a stream whose size its headers give (compressed.ZstdStream)
		}
	} else {
		c.size = int(src.Size())
	}
	if !withHead {
		return c, nil
	}
	var err error
	if c.head, err = readHead(src, delim); err != nil {
		src.Close()
		return nil, err
	}
	return c, nil
}

// openIndexed opens the CSV at path for the lookups of the index files
// whose source part is p (see sourcePart): as openSource does, or, when
// p's header has a source section (the CSV was read through a backend),
// through the table p keeps, after checking that the file on disk starts
// with the one indexed (see openTabled). Rows appended to a compressed
// file since are not read (the table does not cover them): the csvFile's
// grown says how many bytes of the file they take.
func openIndexed(path string, p *part, advice mapping.Advice) (*csvFile, error) {
	if p.h.Source == nil {
		return openSource(path, advice, p.h.Delim)
	}
	src, _, grown, err := openCurrent(path, p)
	if err != nil {
		return nil, err
	}
	c, err := fromSource(src, p.h.Delim, false)
	if err != nil {
		return nil, err
	}
	c.grown = grown
	return c, nil
}

// openAppended opens the CSV at path for a writer of the index files whose
// source part is p (see sourcePart), with the head a build reads: as
// openSource does, or, when p's header has a source section, through the
// table p keeps, after checking that the file starts with the one
// indexed; with extend, that table is extended by a walk of what was
// appended to the file since (see source.OpenExtended). A file that does
// not start with the one indexed is the stale error that says so.
func openAppended(path string, p *part, advice mapping.Advice, extend bool) (*csvFile, error) {
	if p.h.Source == nil {
		return openSource(path, advice, p.h.Delim)
	}
	src, table, grown, err := openCurrent(path, p)
	if err != nil {
		return nil, err
	}
	if grown > 0 && extend {
		src.Close()
		if src, err = source.OpenExtended(path, p.h.Source.Backend, table); err != nil {
			return nil, err
		}
	}
	c, err := fromSource(src, p.h.Delim, true)
	if err != nil {
		return nil, err
	}
	if !extend {
		c.grown = grown
	}
	return c, nil
}

// openCurrent opens the CSV at path through the table of p's source
// section (see openTabled), which it returns too, and refuses a file that
// does not start with the one indexed with the stale error that says so.
func openCurrent(path string, p *part) (src source.Source, table []byte, grown int64, err error) {
	if table, err = p.table(); err != nil {
		return nil, nil, 0, err
	}
	src, grown, changed, err := openTabled(path, p, table)
	if err != nil {
		return nil, nil, 0, err
	}
	if changed != nil {
		src.Close()
		return nil, nil, 0, changed
	}
	return src, table, grown, nil
}

// openWriting opens the CSV of the index files o for a writer of them (see
// openAppended): through the table of the tail when it has one, or, when
// the file changed past what the main index covers (the tail is stale,
// and is passed over or refused as such), through the main index's.
func (o *opened) openWriting(advice mapping.Advice, extend bool) (*csvFile, error) {
	sp := sourcePart(o.main, o.tail)
	c, err := openAppended(o.csvPath, sp, advice, extend)
	var rebuild *RebuildError
	if sp != o.main && errors.As(err, &rebuild) {
		return openAppended(o.csvPath, o.main, advice, extend)
	}
	return c, err
}

// sourcePart returns the index file whose source section describes the
// CSV as last indexed: the tail, when it has one (an update of a
// compressed CSV records the file as it found it), else main.
func sourcePart(main, tail *part) *part {
	if tail != nil && tail.h.Source != nil {
		return tail
	}
	return main
}

// table returns the table of p's source section, read under a guard of
// p's mapping.
func (p *part) table() ([]byte, error) {
	var table []byte
	err := mapping.Guard(func() (err error) {
		table, err = format.ReadTable(p.h, p.data)
		return err
	}, p.m)
	switch {
	case err == mapping.ErrFault:
		return nil, fmt.Errorf("%s: %w", p.path, ErrChanged)
	case err != nil:
		return nil, mustRebuild(p.path, p.path, p.h, fmt.Errorf("%s: %w", p.path, err))
	}
	return table, nil
}

// openTabled opens the CSV at path through table, the table of the source
// section of p (see sourcePart and part.table), and checks that the file
// on disk starts with the one indexed, the same ends of the same size (see
// sameFile): when it does not, src is open all the same and changed is the
// stale error that says so; when it does, grown is how many bytes were
// appended to it since.
func openTabled(path string, p *part, table []byte) (src source.Source, grown int64, changed, err error) {
	if src, err = source.OpenTable(path, p.h.Source.Backend, table); errors.Is(err, source.ErrTable) {
		return nil, 0, nil, mustRebuild(path, p.path, p.h, fmt.Errorf("%s: %w", p.path, err))
	} else if err != nil {
		return nil, 0, nil, err
	}
	var rebuild *RebuildError
	grown, err = sameFile(src, p.h.Source, path, p.path, p.h)
	if errors.As(err, &rebuild) {
		return src, 0, err, nil
	} else if err != nil {
		src.Close()
		return nil, 0, nil, err
	}
	return src, grown, nil, nil
}

// sameFile refuses a source whose file on disk does not start with the
// file a source section describes: it is smaller, or other bytes are at
// either end of what the section covers. It returns how many bytes were
// appended to the file since, which the section's table does not cover.
func sameFile(src source.Source, s *format.SourceInfo, path, idxPath string, h *format.Header) (grown int64, err error) {
	t, ok := src.(source.Tabled)
	if !ok {
		return 0, fmt.Errorf("%s: its index says the backend %q reads it, and it is read without one", path, s.Backend)
	}
	now, err := src.Current()
	if err != nil {
		return 0, err
	}
	why := ""
	if uint64(now.Size) < s.Size {
		why = fmt.Sprintf("%d bytes when the index was built, %d now", s.Size, now.Size)
	} else {
		head, tail, err := fileEnds(t, int64(s.Size))
		if err != nil {
			return 0, err
		}
		if xxh3.Hash(head) != s.HeadSum || xxh3.Hash(tail) != s.TailSum {
			why = fmt.Sprintf("the first or last %d of the %d bytes indexed changed", len(head), s.Size)
		}
	}
	if why != "" {
		return 0, mustRebuild(path, idxPath, h, fmt.Errorf("%s is %w: %s changed since the build (%s)", idxPath, ErrStale, path, why))
	}
	return now.Size - int64(s.Size), nil
}

// fileEnds returns the first and the last min(EndHashLen, size) bytes of
// the first size bytes of t's file on disk.
func fileEnds(t source.Tabled, size int64) (head, tail []byte, err error) {
	k := min(format.EndHashLen, size)
	head, tail = make([]byte, k), make([]byte, k)
	for _, r := range []struct {
		p   []byte
		off int64
	}{{head, 0}, {tail, size - k}} {
		if n, err := t.FileAt(r.p, r.off); n < len(r.p) {
			if err == nil || err == io.EOF {
				err = fmt.Errorf("%s: %w: it ends at %d bytes", t.Name(), ErrChanged, r.off+int64(n))
			}
			return nil, nil, err
		}
	}
	return head, tail, nil
}

// sourceSection returns the source section of an index of the CSV c, when
// it is read through a backend, else nil: the file as its table covers it,
// or, when c is a prefix of the source whose fileSize is set (the verify of
// an index of a file since appended to), the file as it was when it was
// its first fileSize bytes, if its plain bytes ended where c does.
func (c *csvFile) sourceSection() (*format.SourceInfo, error) {
	t, ok := c.src.(source.Tabled)
	if !ok {
		return nil, nil
	}
	table, covered := t.Table(), t.Covered()
	if int64(c.size) < t.Size() && c.fileSize > 0 {
		if cut, ok := t.Cut(int64(c.size), c.fileSize); ok {
			table, covered = cut, c.fileSize
		}
	}
	head, tail, err := fileEnds(t, covered)
	if err != nil {
		return nil, err
	}
	return &format.SourceInfo{Backend: t.Backend(), Size: uint64(covered),
		HeadSum: xxh3.Hash(head), TailSum: xxh3.Hash(tail), Table: table}, nil
}

// headStart is the bytes readHead reads first, doubling them until they
// hold two whole records.
const headStart = 64 << 10

// readHead reads the first bytes of src, enough to hold its first two
// records whole, or all of it. Of a source.Walking, whose size is not known
// yet, a read that comes short of what it asked for has read all of it.
func readHead(src source.Source, delim byte) ([]byte, error) {
	_, walking := src.(source.Walking)
	for n := int64(headStart); ; n *= 2 {
		if !walking {
			n = min(n, src.Size())
		}
		buf := make([]byte, n)
		k, err := src.ReadAt(context.Background(), buf, 0)
		switch {
		case walking && k < len(buf) && errors.Is(err, io.EOF):
			return buf[:k], nil
		case err != nil:
			return nil, err
		case !walking && n == src.Size() || holdsRecords(buf, delim, 2):
			return buf, nil
		}
	}
}

// holdsRecords reports whether data holds k records that end before its
// last byte: a record that reaches it may go on past it.
func holdsRecords(data []byte, delim byte, k int) bool {
	s, err := scan.New(data, delim, 0)
	if err != nil {
		return true // the delimiter is refused later, whatever the bytes
	}
	for range k {
		if !s.Next() || !s.Terminated() || s.End() >= len(data) {
			return false
		}
	}
	return true
}

// input returns what a scan reads the CSV through: its bytes and mapping
// in place when it is mapped, else windows read from the source.
func (c *csvFile) input(s *chunked.Scan) {
	switch {
	case c.mem != nil:
		s.Data, s.Map = c.data, c.mapping()
	case c.walking != nil: // read once, front to back, as it is decoded
		known := c.walking.Known
		if c.size > 0 { // known from the start, or of a prefix
			known = func() (int64, bool) { return int64(c.size), true }
		}
		s.Input = chunked.NewStreamReaderAt(source.ReaderAt(context.Background(), c.src), known)
	default:
		if sc, ok := c.src.(source.Scanned); ok {
			sc.WillScan()
		}
		s.Input = chunked.NewReaderAt(source.ReaderAt(context.Background(), c.src), int64(c.size))
	}
}

// scanDone is called when a scan of the CSV has read it to its end: the
// size of a source walked as it was read is then known.
func (c *csvFile) scanDone() {
	if c.walking != nil {
		if c.size == 0 {
			c.size = int(c.src.Size())
		}
		c.walking = nil
	}
}

// planSize returns the CSV's size for a scan's plan: of a source walked as
// it is read, whose size is not known yet, a guess (four times the
// compressed file's).
func (c *csvFile) planSize() int64 {
	if c.walking != nil && c.size == 0 {
		return 4 * c.src.Identity().Size
	}
	return int64(c.size)
}

// ends returns the checksums of the first and the last 64 KiB of the
// bytes worked on (see endHashes).
func (c *csvFile) ends() (head, tail uint64, err error) {
	if c.mem != nil {
		head, tail = endHashes(c.data)
		return head, tail, nil
	}
	n := min(c.size, format.EndHashLen)
	first, last := make([]byte, n), make([]byte, n)
	r := source.ReaderAt(context.Background(), c.src)
	if _, err := r.ReadAt(first, 0); err != nil {
		return 0, 0, err
	}
	if _, err := r.ReadAt(last, int64(c.size-n)); err != nil {
		return 0, 0, err
	}
	return xxh3.Hash(first), xxh3.Hash(last), nil
}

// prefix returns the CSV's first n bytes, which the CSV must hold, as a
// csvFile of its own sharing the source.
func (c *csvFile) prefix(n int) *csvFile {
	p := *c
	p.size = n
	if c.mem != nil {
		p.data = c.data[:n]
	}
	p.head = c.head[:min(len(c.head), n)]
	return &p
}

// mapping returns the CSV's mapping, for guards and advice; nil when it
// is not mapped.
func (c *csvFile) mapping() *mapping.Map {
	if c.mem == nil {
		return nil
	}
	return c.mem.Map()
}

// at returns the source as an io.ReaderAt (for the freshness checks),
// giving up at ctx's cancellation.
func (c *csvFile) at(ctx context.Context) io.ReaderAt { return source.ReaderAt(ctx, c.src) }

// guard runs fn, which reads the CSV's mapped bytes, turning a fault on
// them (the file shrank meanwhile) into an error wrapping ErrChanged.
func (c *csvFile) guard(fn func() error) error {
	if c.mem == nil {
		return fn()
	}
	return c.mem.Guard(fn)
}

// release unmaps the CSV once its bytes are no longer needed (see
// source.Mapped).
func (c *csvFile) release() {
	if c.mem != nil {
		c.mem.Release()
		c.data, c.head = nil, nil
	}
}

func (c *csvFile) close() error { return c.src.Close() }

// endHashes returns the checksums of the first and the last 64 KiB of
// data.
func endHashes(data []byte) (head, tail uint64) {
	return xxh3.Hash(data[:min(len(data), format.EndHashLen)]),
		xxh3.Hash(data[max(0, len(data)-format.EndHashLen):])
}
