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
	src  source.Source
	mem  source.Mapped // src when it is mapped, else nil
	data []byte        // mem.Bytes(), or a prefix; nil once released, or when not mapped
	size int           // the bytes worked on: len(data) until released, when mapped
	head []byte        // data, or when not mapped the CSV's first records (see openSource)

	releaseAfterScan bool // a build that needs no byte of the CSV once scanned, so may release it during the sort
}

// openCSV opens the CSV at path (see source.Open), which must be mapped:
// the lookups and the scans read its bytes in memory.
func openCSV(path string, advice mapping.Advice) (*csvFile, error) {
	src, err := source.Open(path, advice)
	if err != nil {
		return nil, err
	}
	m, ok := src.(source.Mapped)
	if !ok {
		src.Close()
		return nil, fmt.Errorf("%s is compressed: csvidx builds, verifies and reads its index (build, verify, get, info), but update, compact and join of a compressed CSV are not done yet; decompress it for those", path)
	}
	return mapped(m), nil
}

// mapped returns the csvFile of a mapped source.
func mapped(m source.Mapped) *csvFile {
	return &csvFile{src: m, mem: m, data: m.Bytes(), size: len(m.Bytes()), head: m.Bytes()}
}

// openSource opens the CSV at path as openCSV does, or, when its source is
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

// fromSource returns the csvFile of src (see openSource), with its head
// read when withHead (a build's, not a lookup's), closing src on an error.
func fromSource(src source.Source, delim byte, withHead bool) (*csvFile, error) {
	if m, ok := src.(source.Mapped); ok {
		return mapped(m), nil
	}
	c := &csvFile{src: src, size: int(src.Size())}
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

// openIndexed opens the CSV at path for the lookups of the main index p:
// as openSource does, or, when p's header has a source section (the CSV was
// read through a backend), through the table p keeps, after checking that
// the file on disk is the one indexed (see openTabled).
func openIndexed(path string, p *part, advice mapping.Advice) (*csvFile, error) {
	if p.h.Source == nil {
		return openSource(path, advice, p.h.Delim)
	}
	src, changed, err := openTabled(path, p)
	if err != nil {
		return nil, err
	}
	if changed != nil {
		src.Close()
		return nil, changed
	}
	return fromSource(src, p.h.Delim, false)
}

// openTabled opens the CSV at path through the table of the source section
// of p, a main index, read under a guard of p's mapping, and checks that
// the file on disk is the one indexed, the same size and ends: when it is
// not, src is open all the same and changed is the stale error that says
// so.
func openTabled(path string, p *part) (src source.Source, changed, err error) {
	s := p.h.Source
	var table []byte
	err = mapping.Guard(func() (err error) {
		table, err = format.ReadTable(p.h, p.data)
		return err
	}, p.m)
	switch {
	case err == mapping.ErrFault:
		return nil, nil, fmt.Errorf("%s: %w", p.path, ErrChanged)
	case err != nil:
		return nil, nil, mustRebuild(path, p.path, p.h, fmt.Errorf("%s: %w", p.path, err))
	}
	if src, err = source.OpenTable(path, s.Backend, table); err != nil {
		return nil, nil, err
	}
	var rebuild *RebuildError
	if err := sameFile(src, s, path, p.path, p.h); errors.As(err, &rebuild) {
		return src, err, nil
	} else if err != nil {
		src.Close()
		return nil, nil, err
	}
	return src, nil, nil
}

// sameFile refuses a source whose file on disk is not the one a source
// section describes: another size, or other bytes at either end. An
// appended compressed file is refused too, for now: its table covers only
// the frames it had.
func sameFile(src source.Source, s *format.SourceInfo, path, idxPath string, h *format.Header) error {
	t, ok := src.(source.Tabled)
	if !ok {
		return fmt.Errorf("%s: its index says the backend %q reads it, and it is read without one", path, s.Backend)
	}
	head, tail, err := t.FileEnds(format.EndHashLen)
	if err != nil {
		return err
	}
	now, err := src.Current()
	if err != nil {
		return err
	}
	why := ""
	switch size := now.Size; {
	case uint64(size) != s.Size:
		why = fmt.Sprintf("%d bytes when the index was built, %d now", s.Size, size)
	case xxh3.Hash(head) != s.HeadSum || xxh3.Hash(tail) != s.TailSum:
		why = fmt.Sprintf("its first or last %d bytes on disk changed", len(head))
	}
	if why != "" {
		return mustRebuild(path, idxPath, h, fmt.Errorf("%s is %w: %s changed since the build (%s)", idxPath, ErrStale, path, why))
	}
	return nil
}

// sourceSection returns the source section of a main index of the CSV c,
// when it is read through a backend, else nil.
func (c *csvFile) sourceSection() (*format.SourceInfo, error) {
	t, ok := c.src.(source.Tabled)
	if !ok {
		return nil, nil
	}
	head, tail, err := t.FileEnds(format.EndHashLen)
	if err != nil {
		return nil, err
	}
	return &format.SourceInfo{Backend: t.Backend(), Size: uint64(t.Identity().Size),
		HeadSum: xxh3.Hash(head), TailSum: xxh3.Hash(tail), Table: t.Table()}, nil
}

// headStart is the bytes readHead reads first, doubling them until they
// hold two whole records.
const headStart = 64 << 10

// readHead reads the first bytes of src, enough to hold its first two
// records whole, or all of it.
func readHead(src source.Source, delim byte) ([]byte, error) {
	for n := int64(headStart); ; n *= 2 {
		buf := make([]byte, min(n, src.Size()))
		if _, err := src.ReadAt(context.Background(), buf, 0); err != nil {
			return nil, err
		}
		if int64(len(buf)) == src.Size() || holdsRecords(buf, delim, 2) {
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
	if c.mem != nil {
		s.Data, s.Map = c.data, c.mapping()
		return
	}
	s.Input = chunked.NewReaderAt(source.ReaderAt(context.Background(), c.src), int64(c.size))
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
