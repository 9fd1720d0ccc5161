package index

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/internal/mapping"
)

// fenceCheck compares a fence file with the one a build makes, entry by
// entry as the build makes them, in fixed memory: verify's counterpart of
// fence.Writer.
type fenceCheck struct {
	path  string
	f     *os.File // nil when the file could not be opened
	err   error    // why not
	size  int64
	r     *bufio.Reader // the file's entries
	s     fence.Stream  // the fresh fence
	entry [8]byte
	diff  int64 // the first byte of the file, past its header, that differs; -1 while none
}

// newFenceCheck opens the fence file at path for comparison.
func newFenceCheck(path string) *fenceCheck {
	c := &fenceCheck{path: path, diff: -1}
	f, st, err := mapping.Open(path) // a regular file, never a wait on a FIFO
	if err != nil {
		c.err = err
		return c
	}
	c.f, c.size = f, st.Size()
	c.r = bufio.NewReaderSize(io.NewSectionReader(c.f, fence.HeaderSize, max(0, c.size-fence.HeaderSize)), 64<<10)
	return c
}

// add takes the fresh fence's next entry and compares it with the file's.
func (c *fenceCheck) add(first uint64) error {
	want := c.s.Add(first)
	if c.r == nil || c.diff >= 0 {
		return nil
	}
	n, _ := io.ReadFull(c.r, c.entry[:])
	for i := range want {
		if i >= n || c.entry[i] != want[i] {
			c.diff = fence.HeaderSize + int64(len(want))*int64(c.s.Entries()-1) + int64(i)
			break
		}
	}
	return nil
}

// close closes the file.
func (c *fenceCheck) close() {
	if c.f != nil {
		c.f.Close()
	}
}

// report says how the file, the fence of the main index with generation
// gen, differs from the fence of a fresh build with generation fresh. A
// missing fence, or one left by an interrupted writer for another index, is
// a note: lookups ignore it.
func (c *fenceCheck) report(gen, fresh uint64) (diffs, notes []string) {
	name := filepath.Base(c.path)
	if errors.Is(c.err, fs.ErrNotExist) {
		return nil, []string{name + " is missing: lookups search the index without it, more slowly (a build or compact writes it)"}
	}
	if c.err != nil {
		return []string{name + ": " + c.err.Error()}, nil
	}
	header := make([]byte, fence.HeaderSize)
	n, err := c.f.ReadAt(header, 0)
	if err != nil && err != io.EOF {
		return []string{name + ": " + err.Error()}, nil
	}
	if g, ok := fence.Generation(header[:n]); ok && g != gen {
		return nil, []string{name + " belongs to another index (an interrupted writer left it): lookups ignore it; a build or compact rewrites it"}
	}
	want := fence.HeaderSize + int64(8*c.s.Entries())
	if c.size != want {
		return []string{fmt.Sprintf("%s: %d bytes, a fresh build writes %d", name, c.size, want)}, nil
	}
	diff := c.diff
	for i, b := range c.s.Header(fresh) {
		if header[i] != b {
			diff = int64(i)
			break
		}
	}
	if diff >= 0 {
		return []string{fmt.Sprintf("%s: differs from a fresh build's from byte %d (lookups ignore a broken fence; a build repairs it)", name, diff)}, nil
	}
	return nil, nil
}
