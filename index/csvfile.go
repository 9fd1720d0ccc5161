package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/source"
)

// csvFile is a CSV file opened and mapped for reading.
type csvFile struct {
	path    string
	f       *os.File
	m       *mapping.Map
	data    []byte
	perm    fs.FileMode // its permission bits, which the index files get
	modTime time.Time   // when it was last written, as of opening
	ctime   int64       // when its inode last changed, as of opening
	ctimeOK bool        // whether ctime is known on this system

	releaseAfterScan bool       // a build that needs no byte of the CSV once scanned, so may release it during the sort
	unmapped         chan error // set by release; the unmapping's result
}

// openCSV opens and maps the CSV at path.
func openCSV(path string, advice mapping.Advice) (*csvFile, error) {
	f, st, err := source.OpenInput(path)
	if err != nil {
		return nil, err
	}
	m, err := mapping.File(f, st.Size(), advice)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	ctime, ok := source.ChangeTime(st)
	return &csvFile{path: path, f: f, m: m, data: m.Bytes(), perm: st.Mode().Perm(), modTime: st.ModTime(), ctime: ctime, ctimeOK: ok}, nil
}

// guard runs fn, which reads the CSV's mapped bytes, turning a fault on
// them (the file shrank meanwhile) into an error wrapping ErrChanged.
func (c *csvFile) guard(fn func() error) error {
	err := mapping.Guard(fn, c.m)
	if errors.Is(err, mapping.ErrFault) {
		return fmt.Errorf("%s: %w", c.path, ErrChanged)
	}
	return err
}

// release unmaps the CSV on a goroutine of its own, for a build that has
// read all it needs of it: unmapping a file of gigabytes takes the kernel a
// tenth of a second (4.68 GB), better spent while the records sort than at
// the end. The build calls it once the sort has made its buffers (at the
// first sorted batch): while the unmapping runs, the process can map no new
// memory, and a sort that started with it waited for it with a core idle.
// data is nil afterwards; close waits for the unmapping. Calls after the
// first do nothing.
func (c *csvFile) release() {
	if c.unmapped != nil {
		return
	}
	m := c.m
	c.data, c.unmapped = nil, make(chan error, 1)
	go func() { c.unmapped <- m.Close() }()
}

func (c *csvFile) close() error {
	var err error
	if c.unmapped != nil {
		err = <-c.unmapped
	} else {
		err = c.m.Close()
	}
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// endHashes returns the checksums of the first and the last 64 KiB of
// data.
func endHashes(data []byte) (head, tail uint64) {
	return xxh3.Hash(data[:min(len(data), format.EndHashLen)]),
		xxh3.Hash(data[max(0, len(data)-format.EndHashLen):])
}
