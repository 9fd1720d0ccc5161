package index

import (
	"context"
	"fmt"
	"io"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/source"
)

// csvFile is a CSV as the readers and writers of its index work on it:
// its source, mapped, and the bytes worked on, all of them or, for
// a verify of the part an index covers, a prefix (size of them).
// Copies (a prefix's) share the source: release on one releases the
// bytes of all, so only a build, which makes none, releases.
type csvFile struct {
	src  source.Source
	mem  source.Mapped // src, mapped
	data []byte        // mem.Bytes(), or a prefix; nil once released
	size int           // the bytes worked on: len(data) until released

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
		return nil, fmt.Errorf("%s: csvidx reads only CSV files it can map", path)
	}
	return &csvFile{src: m, mem: m, data: m.Bytes(), size: len(m.Bytes())}, nil
}

// prefix returns the CSV's first n bytes, which the CSV must hold, as a
// csvFile of its own sharing the source.
func (c *csvFile) prefix(n int) *csvFile {
	p := *c
	p.data, p.size = c.data[:n], n
	return &p
}

// mapping returns the CSV's mapping, for guards and advice.
func (c *csvFile) mapping() *mapping.Map { return c.mem.Map() }

// at returns the source as an io.ReaderAt (for the freshness checks),
// giving up at ctx's cancellation.
func (c *csvFile) at(ctx context.Context) io.ReaderAt { return source.ReaderAt(ctx, c.src) }

// guard runs fn, which reads the CSV's mapped bytes, turning a fault on
// them (the file shrank meanwhile) into an error wrapping ErrChanged.
func (c *csvFile) guard(fn func() error) error { return c.mem.Guard(fn) }

// release unmaps the CSV once its bytes are no longer needed (see
// source.Mapped).
func (c *csvFile) release() {
	c.mem.Release()
	c.data = nil
}

func (c *csvFile) close() error { return c.src.Close() }

// endHashes returns the checksums of the first and the last 64 KiB of
// data.
func endHashes(data []byte) (head, tail uint64) {
	return xxh3.Hash(data[:min(len(data), format.EndHashLen)]),
		xxh3.Hash(data[max(0, len(data)-format.EndHashLen):])
}
