package index

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
)

// part is one mapped index file, the main index or its tail: its record
// pages are read by a format.Reader, whose errors it words as an index's
// that must be rebuilt.
type part struct {
	path    string
	csvPath string // for errors
	m       *mapping.Map
	data    []byte // the mapped file
	h       *format.Header
	fence   *fence.Fence   // for a main index, when it has a usable one
	r       *format.Reader // reads the record pages, through the fence
	filter  *keyFilter     // when set (Index.UseFilters), the runs it holds
}

// openPart maps the index file at path and validates its header and size.
// tail says which kind of file belongs there. A missing file is ErrNoIndex
// (wrapped) for a main index, and (nil, nil) for a tail.
func openPart(path, csvPath string, tail bool) (*part, error) {
	f, st, err := mapping.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if tail {
			return nil, nil
		}
		return nil, mustRebuild(csvPath, path, nil, fmt.Errorf("%w for %s: %s does not exist", ErrNoIndex, csvPath, path))
	}
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping stays valid
	m, err := mapping.File(f, st.Size(), mapping.Random)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	var h *format.Header
	err = mapping.Guard(func() error {
		var err error
		h, err = format.DecodeHeader(m.Bytes())
		return err
	}, m)
	switch {
	case err != nil:
	case h.Flags&format.FlagTail != 0 && !tail:
		err = fmt.Errorf("%w: a tail file where a main index belongs", ErrCorrupt)
	case h.Flags&format.FlagTail == 0 && tail:
		err = fmt.Errorf("%w: a main index where a tail file belongs", ErrCorrupt)
	case uint64(st.Size()) != h.Size():
		err = fmt.Errorf("%w: the file is %d bytes, its header says %d", ErrCorrupt, st.Size(), h.Size())
	}
	if err != nil {
		m.Close()
		if errors.Is(err, mapping.ErrFault) {
			err = fmt.Errorf("%w: %w", ErrChanged, err)
		}
		return nil, mustRebuild(csvPath, path, h, fmt.Errorf("%s: %w", path, err))
	}
	p := &part{path: path, csvPath: csvPath, m: m, data: m.Bytes(), h: h}
	p.setFence(nil)
	return p, nil
}

// setFence makes f, a usable fence or nil, the one p's lookups go through.
func (p *part) setFence(f *fence.Fence) {
	p.fence = f
	var finder format.Finder // nil, not a nil *fence.Fence
	if f != nil {
		finder = f
	}
	p.r = format.NewReader(p.data, p.h, finder)
}

func (p *part) close() error {
	if p == nil {
		return nil
	}
	p.fence.Close()
	return p.m.Close()
}

// maps returns the part's mappings, for guarding reads of them.
func (p *part) maps() []*mapping.Map {
	if p == nil {
		return nil
	}
	if p.fence != nil {
		return []*mapping.Map{p.m, p.fence.Map()}
	}
	return []*mapping.Map{p.m}
}

// askPages asks the kernel to read, all at once, the index pages where the
// runs of hashes start, as the fence names them: the whole fence first,
// then one page per hash. Without a fence it does nothing.
func (p *part) askPages(hashes []uint64) {
	if p.fence == nil {
		return
	}
	p.fence.Map().WillNeedAll()
	offs := make([]uint64, len(hashes))
	for i, h := range hashes {
		offs[i] = format.PageSize * (1 + p.fence.Find(p.searchKey(h)))
	}
	p.m.WillNeed(offs)
}

// The record pages' reads, as p's: see format.Reader. A page that is not
// what the format says is an index to rebuild (see reading).

func (p *part) locate(h uint64) uint64    { return p.r.Locate(h) }
func (p *part) searchKey(h uint64) uint64 { return p.r.SearchKey(h) }

func (p *part) offsets(h, at uint64, fn func([]uint64) error) error {
	return p.reading(p.r.Offsets(h, at, fn))
}

// cursorOffsets is offsets of h through c, a cursor on p's reader.
func (p *part) cursorOffsets(c *format.Cursor, h uint64, fn func([]uint64) error) error {
	return p.reading(c.Offsets(h, fn))
}

// reading returns err, or for a *format.PageError of p's pages, the error
// of an index that must be rebuilt, with what the page error says.
func (p *part) reading(err error) error {
	// A Reader returns its page errors as they are, unwrapped: no errors.As,
	// which reflects, on the path of every lookup that fn stops.
	if pe, ok := err.(*format.PageError); ok && pe.Reader == p.r {
		return p.corrupt("%s", pe.Msg)
	}
	return err
}

func (p *part) corrupt(format string, args ...any) error {
	return mustRebuild(p.csvPath, p.path, p.h, fmt.Errorf("%s: %w: %s", p.path, ErrCorrupt, fmt.Sprintf(format, args...)))
}
