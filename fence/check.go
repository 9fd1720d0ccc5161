package fence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/csvidx/csvidx/internal/mapping"
)

// Check compares a fence file with the one a build makes, entry by
// entry as the build makes them, in fixed memory (see Comparison),
// and says what verify makes of the difference.
type Check struct {
	path string
	f    *os.File    // nil when the file could not be opened
	err  error       // why not
	cmp  *Comparison // nil without f
}

// NewCheck opens the fence file at path for comparison.
func NewCheck(path string) *Check {
	c := &Check{path: path}
	f, st, err := mapping.Open(path) // a regular file, never a wait on a FIFO
	if err != nil {
		c.err = err
		return c
	}
	c.f, c.cmp = f, Compare(f, st.Size())
	return c
}

// Add takes the fresh fence's next entry and compares it with the file's.
func (c *Check) Add(first uint64) error {
	if c.cmp != nil {
		c.cmp.Add(first)
	}
	return nil
}

// Close closes the file.
func (c *Check) Close() {
	if c.f != nil {
		c.f.Close()
	}
}

// Report says how the file, the fence of the main index with generation
// gen, differs from the fence of a fresh build with generation fresh. A
// missing fence, or one left by an interrupted writer for another index, is
// a note: lookups ignore it.
func (c *Check) Report(gen, fresh uint64) (diffs, notes []string) {
	name := filepath.Base(c.path)
	if errors.Is(c.err, fs.ErrNotExist) {
		return nil, []string{name + " is missing: lookups search the index without it, more slowly (a build or compact writes it)"}
	}
	if c.err != nil {
		return []string{name + ": " + c.err.Error()}, nil
	}
	d, err := c.cmp.Result(fresh)
	switch {
	case err != nil:
		return []string{name + ": " + err.Error()}, nil
	case d.Intact && d.Generation != gen:
		return nil, []string{name + " belongs to another index (an interrupted writer left it): lookups ignore it; a build or compact rewrites it"}
	case d.Size != d.WantSize:
		return []string{fmt.Sprintf("%s: %d bytes, a fresh build writes %d", name, d.Size, d.WantSize)}, nil
	case d.At >= 0:
		return []string{fmt.Sprintf("%s: differs from a fresh build's from byte %d (lookups ignore a broken fence; a build repairs it)", name, d.At)}, nil
	}
	return nil, nil
}
