package index

import (
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/source"
)

// csvFile is a CSV as the readers and writers of its index work on it:
// its source, a mapped file, and the bytes worked on, all of them or, for
// a verify of the part an index covers, a prefix.
// Copies (a prefix's) share the source: release on one releases the
// bytes of all, so only a build, which makes none, releases.
type csvFile struct {
	src  *source.File
	data []byte // src.Bytes(), or a prefix; nil once released

	releaseAfterScan bool // a build that needs no byte of the CSV once scanned, so may release it during the sort
}

// openCSV opens and maps the CSV at path (see source.OpenFile).
func openCSV(path string, advice mapping.Advice) (*csvFile, error) {
	src, err := source.OpenFile(path, advice)
	if err != nil {
		return nil, err
	}
	return &csvFile{src: src, data: src.Bytes()}, nil
}

// guard runs fn, which reads the CSV's mapped bytes, turning a fault on
// them (the file shrank meanwhile) into an error wrapping ErrChanged.
func (c *csvFile) guard(fn func() error) error { return c.src.Guard(fn) }

// release unmaps the CSV once its bytes are no longer needed (see
// source.File.Release).
func (c *csvFile) release() {
	c.src.Release()
	c.data = nil
}

func (c *csvFile) close() error { return c.src.Close() }

// endHashes returns the checksums of the first and the last 64 KiB of
// data.
func endHashes(data []byte) (head, tail uint64) {
	return xxh3.Hash(data[:min(len(data), format.EndHashLen)]),
		xxh3.Hash(data[max(0, len(data)-format.EndHashLen):])
}
