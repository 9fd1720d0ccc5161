package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
)

// A ConcatPart is one file of a Concat, as its bytes were found when the
// concatenation was made.
type ConcatPart struct {
	// Name is the part's path or URL, as given.
	Name string
	// Size is how many bytes the part holds.
	Size int64
	// Skip is how many of its first bytes are not in the concatenation:
	// the header of every part but the first.
	Skip int64
	// Newline says that a newline follows the part's bytes in the
	// concatenation: its last record has none.
	Newline bool
}

// Len returns how many bytes the part takes in the concatenation.
func (p ConcatPart) Len() int64 {
	n := p.Size - p.Skip
	if p.Newline {
		n++
	}
	return n
}

// maxOpenParts is how many parts a Concat keeps open at once, the most
// lately used: a scan of thousands of files reads them one after another.
const maxOpenParts = 64

// Concat is a CSV made of several files read as one: each part's bytes
// from its Skip on, then a newline where its last record has none, one
// part after the other (all but the first skip their header). A part read
// short of its listed size is ErrChanged. Its offsets are the concatenation's; PartAt tells which
// part holds one. Parts are opened when first read, through the opener
// given, which checks that each is still the version the concatenation
// was made of, and at most maxOpenParts are kept open.
type Concat struct {
	name  string
	parts []ConcatPart
	bases []int64 // the offset each part starts at
	size  int64
	id    Identity
	open  func(i int) (Source, error)

	mu   sync.Mutex
	srcs map[int]*openPart
	seq  int64
}

// An openPart is a part's source while it is open: users count the reads
// in progress, so that it is closed only once none uses it.
type openPart struct {
	src   Source
	users int
	used  int64
}

// NewConcat returns the concatenation of parts, named name, whose part i
// open(i) opens (and checks). tag tells this concatenation from others of
// the same size: its Identity's ETag.
func NewConcat(name string, parts []ConcatPart, tag string, open func(i int) (Source, error)) (*Concat, error) {
	c := &Concat{name: name, parts: parts, open: open, srcs: map[int]*openPart{}}
	for i, p := range parts {
		if p.Skip < 0 || p.Skip > p.Size {
			return nil, fmt.Errorf("%s: part %d (%s) skips %d of its %d bytes", name, i, p.Name, p.Skip, p.Size)
		}
		c.bases = append(c.bases, c.size)
		c.size += p.Len()
	}
	c.id = Identity{Size: c.size, ETag: tag, Perm: 0o644}
	return c, nil
}

// Name returns the name the concatenation was made with.
func (c *Concat) Name() string { return c.name }

// Size returns the concatenation's size.
func (c *Concat) Size() int64 { return c.size }

// Parts returns the parts.
func (c *Concat) Parts() []ConcatPart { return c.parts }

// Base returns the offset part i starts at in the concatenation.
func (c *Concat) Base(i int) int64 { return c.bases[i] }

// PartAt returns the part that holds offset off of the concatenation, and
// off's offset in that part's file.
func (c *Concat) PartAt(off int64) (i int, inPart int64) {
	i = sort.Search(len(c.bases), func(k int) bool { return c.bases[k] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i, off - c.bases[i] + c.parts[i].Skip
}

// Identity returns the concatenation's size and tag: every part read is
// checked against the version listed when it is opened.
func (c *Concat) Identity() Identity { return c.id }

// Current returns Identity: a part that changed fails the read of it.
func (c *Concat) Current() (Identity, error) { return c.id, nil }

// Splits returns cuts target bytes apart, and where each part starts.
func (c *Concat) Splits(target int64) []int64 {
	target = max(target, 1)
	var cuts []int64
	for i, base := range c.bases {
		end := base + c.parts[i].Len()
		for off := base; off < end; off += target {
			cuts = append(cuts, off)
		}
	}
	if len(cuts) == 0 {
		cuts = []int64{0}
	}
	return cuts
}

// ReadAt reads the concatenation's bytes [off, off+len(p)), from each part
// that holds some of them.
func (c *Concat) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: a read at %d", c.name, off)
	}
	n := 0
	for n < len(p) && off < c.size {
		i, at := c.PartAt(off)
		part := c.parts[i]
		if at == part.Size { // the newline added after the part
			p[n] = '\n'
			n, off = n+1, off+1
			continue
		}
		want := p[n:min(len(p), n+int(part.Size-at))]
		k, err := c.readPart(ctx, i, want, at)
		n, off = n+k, off+int64(k)
		if err != nil && !(errors.Is(err, io.EOF) && k == len(want)) {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%s: part %s ended at %d bytes, listed with %d: %w", c.name, part.Name, at+int64(k), part.Size, ErrChanged)
			}
			return n, err
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// readPart reads part i's bytes [at, at+len(p)) from its source, opening
// it when it is not open.
func (c *Concat) readPart(ctx context.Context, i int, p []byte, at int64) (int, error) {
	src, err := c.acquire(i)
	if err != nil {
		return 0, err
	}
	defer c.release(i)
	return src.ReadAt(ctx, p, at)
}

// acquire returns part i's source, open, for a read, which release ends.
func (c *Concat) acquire(i int) (Source, error) {
	c.mu.Lock()
	c.seq++
	if o := c.srcs[i]; o != nil {
		o.users++
		o.used = c.seq
		c.mu.Unlock()
		return o.src, nil
	}
	c.mu.Unlock()
	src, err := c.open(i) // outside the lock: other parts are read meanwhile
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o := c.srcs[i]; o != nil { // opened meanwhile by another read
		src.Close()
		o.users++
		o.used = c.seq
		return o.src, nil
	}
	c.srcs[i] = &openPart{src: src, users: 1, used: c.seq}
	c.closeIdle()
	return src, nil
}

// release ends a read of part i.
func (c *Concat) release(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.srcs[i].users--
	c.closeIdle()
}

// closeIdle closes the parts used least lately, none in use, past
// maxOpenParts. The caller holds mu.
func (c *Concat) closeIdle() {
	for len(c.srcs) > maxOpenParts {
		oldest, at := -1, int64(0)
		for i, o := range c.srcs {
			if o.users == 0 && (oldest < 0 || o.used < at) {
				oldest, at = i, o.used
			}
		}
		if oldest < 0 {
			return // all in use
		}
		c.srcs[oldest].src.Close()
		delete(c.srcs, oldest)
	}
}

// Close closes the parts open.
func (c *Concat) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for i, o := range c.srcs {
		if err := o.src.Close(); err != nil && first == nil {
			first = err
		}
		delete(c.srcs, i)
	}
	return first
}
