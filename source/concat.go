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

// ConcatParts is the list of a Concat's parts: a slice of them
// (PartSlice), or a table on disk read a part at a time, so that a lookup
// in a concatenation of a million files reads only the parts it needs.
type ConcatParts interface {
	// Len returns the number of parts.
	Len() int
	// Size returns the concatenation's size: the sum of the parts' Len.
	Size() int64
	// Part returns part i and the offset it starts at in the
	// concatenation.
	Part(i int) (ConcatPart, int64, error)
	// Find returns the part that holds offset off of the concatenation
	// (0 <= off < Size): the last that starts at or before it.
	Find(off int64) (int, error)
}

// PartSlice is the ConcatParts of a slice of parts, in memory.
type PartSlice struct {
	parts []ConcatPart
	bases []int64
	size  int64
}

// NewPartSlice returns the ConcatParts of parts, which it checks: a part
// skips at most its size.
func NewPartSlice(parts []ConcatPart) (*PartSlice, error) {
	ps := &PartSlice{parts: parts, bases: make([]int64, len(parts))}
	for i, p := range parts {
		if p.Skip < 0 || p.Skip > p.Size {
			return nil, fmt.Errorf("part %d (%s) skips %d of its %d bytes", i, p.Name, p.Skip, p.Size)
		}
		ps.bases[i] = ps.size
		ps.size += p.Len()
	}
	return ps, nil
}

// Len returns the number of parts.
func (ps *PartSlice) Len() int { return len(ps.parts) }

// Size returns the concatenation's size.
func (ps *PartSlice) Size() int64 { return ps.size }

// Part returns part i and where it starts.
func (ps *PartSlice) Part(i int) (ConcatPart, int64, error) { return ps.parts[i], ps.bases[i], nil }

// Find returns the part that holds off.
func (ps *PartSlice) Find(off int64) (int, error) {
	return max(0, sort.Search(len(ps.bases), func(k int) bool { return ps.bases[k] > off })-1), nil
}

// maxOpenParts is how many parts a Concat keeps open at once, the most
// lately used: a scan of thousands of files reads them one after another.
const maxOpenParts = 64

// Concat is a CSV made of several files read as one: each part's bytes
// from its Skip on, then a newline where its last record has none, one
// part after the other (all but the first skip their header). A part read
// short of its listed size is ErrChanged. Its offsets are the
// concatenation's; PartAt tells which part holds one. Parts are opened
// when first read, through the opener given, which checks that each is
// still the version the concatenation was made of, and at most
// maxOpenParts are kept open.
type Concat struct {
	name  string
	parts ConcatParts
	size  int64
	id    Identity
	open  func(i int) (Source, error)
	ahead bool // Prefetch acts: see FetchAhead

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
func NewConcat(name string, parts ConcatParts, tag string, open func(i int) (Source, error)) *Concat {
	c := &Concat{name: name, parts: parts, size: parts.Size(), open: open, srcs: map[int]*openPart{}}
	c.id = Identity{Size: c.size, ETag: tag, Perm: 0o644}
	return c
}

// Name returns the name the concatenation was made with.
func (c *Concat) Name() string { return c.name }

// Size returns the concatenation's size.
func (c *Concat) Size() int64 { return c.size }

// PartAt returns the part that holds offset off of the concatenation, and
// off's offset in that part's file.
func (c *Concat) PartAt(off int64) (i int, inPart int64, err error) {
	if i, err = c.parts.Find(off); err != nil {
		return 0, 0, err
	}
	p, base, err := c.parts.Part(i)
	if err != nil {
		return 0, 0, err
	}
	return i, off - base + p.Skip, nil
}

// ChecksItsFiles says that the parts are checked as they are opened (see
// SelfChecked).
func (c *Concat) ChecksItsFiles() {}

// Identity returns the concatenation's size and tag: every part read is
// checked against the version listed when it is opened.
func (c *Concat) Identity() Identity { return c.id }

// Current returns Identity: a part that changed fails the read of it.
func (c *Concat) Current() (Identity, error) { return c.id, nil }

// Splits returns cuts target bytes apart, and where each part starts (of
// the first parts, when a part cannot be read: a scan then fails on it).
func (c *Concat) Splits(target int64) []int64 {
	target = max(target, 1)
	var cuts []int64
	for i := range c.parts.Len() {
		p, base, err := c.parts.Part(i)
		if err != nil {
			break
		}
		for off := base; off < base+p.Len(); off += target {
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
		i, at, err := c.PartAt(off)
		if err != nil {
			return n, err
		}
		part, _, err := c.parts.Part(i)
		if err != nil {
			return n, err
		}
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

// FetchAhead makes Prefetch act: a concatenation whose parts may be at
// URLs calls it. Without it Prefetch does nothing: local parts are read as
// they are, and telling which part holds a row may cost reads of a table.
func (c *Concat) FetchAhead() { c.ahead = true }

// Prefetch asks the parts at URLs that hold the rows at offs (a lookup's)
// to fetch them ahead (see Prefetcher), side by side: each part is opened,
// and checked, then fetches its rows in one round trip, so that the rows
// of a lookup cost a few round trips, not one per row or per part. The
// parts asked stay open for the reads to come, at most maxOpenParts of
// them; local parts are read as they are. A part that fails is passed
// over: the read of it says why. It does nothing unless FetchAhead was
// called.
func (c *Concat) Prefetch(offs []int64) {
	if !c.ahead {
		return
	}
	byPart := map[int][]int64{}
	for _, off := range offs {
		for _, o := range []int64{off - 1, off} { // a row's reader reads the byte before it too
			if o < 0 || o >= c.size {
				continue
			}
			i, at, err := c.PartAt(o)
			if err != nil {
				continue
			}
			if p, _, err := c.parts.Part(i); err == nil && at < p.Size && IsURL(p.Name) { // not the newline added after it
				byPart[i] = append(byPart[i], at)
			}
		}
	}
	if len(byPart) > maxOpenParts {
		return // they would not all stay open
	}
	var wg sync.WaitGroup
	for i, ats := range byPart {
		wg.Go(func() {
			src, err := c.acquire(i)
			if err != nil {
				return
			}
			defer c.release(i)
			if pf, ok := src.(Prefetcher); ok {
				pf.Prefetch(ats)
			}
		})
	}
	wg.Wait()
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
