package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/interp"
	"github.com/csvidx/csvidx/internal/mapping"
)

// part is one mapped index file, the main index or its tail. The reads a
// lookup makes in a format 1 file are here; a format 2 file's are in
// densepart.go.
type part struct {
	path    string
	csvPath string // for errors
	m       *mapping.Map
	data    []byte // the mapped file
	h       *format.Header
	checked format.PageSet // the record pages whose CRC matched
	fence   *fence.Fence   // for a main index, when it has a usable one
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
	return &part{path: path, csvPath: csvPath, m: m, data: m.Bytes(), h: h,
		checked: format.NewPageSet(h.Pages)}, nil
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

// runFrom returns the records [first, end) whose hash is h, given first,
// the lower bound of h that lowerBound found. It checks the CRC of every
// page it relies on: the pages of the record before the run, of the run,
// and of the record after it. The file was sorted when written, so a run
// bracketed by smaller and larger hashes on checked pages is the complete
// run, wherever the search's unchecked steps went.
func (p *part) runFrom(h, first uint64) (_, end uint64, err error) {
	n := p.h.Records
	checked := ^uint64(0) // the last page checked; pages come in increasing order
	check := func(i uint64) error {
		if pg := i / format.RecordsPerPage; pg != checked {
			checked = pg
			return p.checkPage(pg)
		}
		return nil
	}
	if first > 0 {
		if err := check(first - 1); err != nil {
			return 0, 0, err
		}
	}
	for end = first; end < n; end++ {
		if err := check(end); err != nil {
			return 0, 0, err
		}
		if p.hashAt(end) != h {
			break
		}
	}
	return first, end, nil
}

// lowerBound returns the index of the first record whose hash is h or more:
// through the fence when there is one, else by searching the index.
func (p *part) lowerBound(h uint64) uint64 {
	if p.fence != nil {
		if i, ok := p.lowerBoundByFence(h); ok {
			return i
		}
	}
	return p.search(h)
}

// lowerBoundByFence finds the lower bound of h through the fence: the one index page it
// names, searched. The fence is not trusted: unless the records around the
// answer bracket h (one below it, the next not), it reports false and the
// caller searches the index. The caller checks the pages of those records,
// so a bracket that holds on them is the true one.
func (p *part) lowerBoundByFence(h uint64) (uint64, bool) {
	n := p.h.Records
	lo := p.fence.Find(h) * format.RecordsPerPage
	if lo >= n {
		return 0, false
	}
	hi := min(lo+format.RecordsPerPage, n)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if p.hashAt(mid) < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo > 0 && p.hashAt(lo-1) >= h || lo < n && p.hashAt(lo) < h {
		return 0, false
	}
	return lo, true
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

// search returns the index of the first record whose hash is h or more,
// searching the index itself, by interpolation over its pages.
func (p *part) search(h uint64) uint64 {
	return interp.LowerBound(p.h.Records, format.RecordsPerPage, h, p.hashAt)
}

func (p *part) hashAt(i uint64) uint64 {
	return binary.LittleEndian.Uint64(p.data[format.RecordPos(i):])
}

func (p *part) offsetAt(i uint64) uint64 {
	return binary.LittleEndian.Uint64(p.data[format.RecordPos(i)+8:])
}

// checkPage verifies record page pg: its CRC, its trailer, and the zero
// padding of a last page. A page is checked once per open index: index
// files are replaced, never written in place.
func (p *part) checkPage(pg uint64) error {
	if p.checked.Has(pg) {
		return nil
	}
	page := p.data[format.PageSize*(1+pg):][:format.PageSize]
	if !crcpage.Intact(page) {
		return p.corrupt("checksum mismatch in record page %d (bytes %d to %d)", pg, format.PageSize*(1+pg), format.PageSize*(2+pg))
	}
	le := binary.LittleEndian
	want := uint64(format.RecordsPerPage)
	if pg == p.h.Pages-1 {
		want = p.h.Records - pg*format.RecordsPerPage
	}
	k := uint64(le.Uint32(page[format.PageLenOffset:]))
	if le.Uint64(page[format.PageNoOffset:]) != pg || k != want || !format.AllZero(page[format.RecordSize*k:format.PageNoOffset]) {
		return p.corrupt("record page %d has a bad trailer", pg)
	}
	// Records strictly increase, by hash then offset, within the page and
	// from the last one of the page before: a duplicated record (with valid
	// checksums) would print a row twice, and miss the one it replaced.
	if slot, ok := outOfOrder(page[:format.RecordSize*k]); ok {
		return p.corrupt("record %d, on record page %d, does not come after the record before it", pg*format.RecordsPerPage+uint64(slot), pg)
	}
	if pg > 0 && k > 0 {
		prev := p.data[format.PageSize*(1+pg)-format.PageSize+format.RecordSize*(format.RecordsPerPage-1):][:format.RecordSize]
		if !recordLess(prev, page[:format.RecordSize]) {
			return p.corrupt("record %d, the first of record page %d, does not come after the last of the page before", pg*format.RecordsPerPage, pg)
		}
	}
	p.checked.Add(pg)
	return nil
}

// outOfOrder returns the first record of recs, encoded records, that does
// not come after the one before it, if there is one.
func outOfOrder(recs []byte) (int, bool) {
	for i := format.RecordSize; i < len(recs); i += format.RecordSize {
		if !recordLess(recs[i-format.RecordSize:i], recs[i:i+format.RecordSize]) {
			return i / format.RecordSize, true
		}
	}
	return 0, false
}

// recordLess reports whether encoded record a sorts before b: by hash, then
// by offset.
func recordLess(a, b []byte) bool {
	le := binary.LittleEndian
	ha, hb := le.Uint64(a), le.Uint64(b)
	return ha < hb || ha == hb && le.Uint64(a[8:]) < le.Uint64(b[8:])
}

func (p *part) corrupt(format string, args ...any) error {
	return mustRebuild(p.csvPath, p.path, p.h, fmt.Errorf("%s: %w: %s", p.path, ErrCorrupt, fmt.Sprintf(format, args...)))
}
