package format

import (
	"encoding/binary"
	"fmt"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/interp"
)

// A Reader finds the rows of a key in one index file held in memory (a
// mapping of the whole file): where its run starts, through the fence or a
// search over the pages, and the offsets of its candidate rows, in either
// version, checking the CRC of every record page it relies on (once per
// Reader: index files are replaced, never written in place). A page that
// is not what the format says is a *PageError. Reads of the memory are the
// caller's to guard. A Reader is safe for concurrent use: it only reads,
// and its set of checked pages is atomic.
type Reader struct {
	data    []byte // the whole file
	h       *Header
	fence   Finder  // nil without a usable fence
	checked PageSet // the record pages whose CRC matched
}

// A Finder is an index file's fence: Find returns the last record page
// whose first key is below key, or 0 (see package fence), an answer that
// a Reader does not trust: it checks it on checked pages.
type Finder interface {
	Find(key uint64) uint64
}

// NewReader returns a Reader of data, a whole index file whose header is
// h, searched through fence when it is not nil (an untyped nil: a nil
// *fence.Fence in a Finder is not nil, and is called).
func NewReader(data []byte, h *Header, fence Finder) *Reader {
	return &Reader{data: data, h: h, fence: fence, checked: NewPageSet(h.Pages)}
}

// OffsetsBatch is the most offsets Offsets passes at once in format 1.
const OffsetsBatch = 512

// A PageError is a record page that is not what the format says. It
// unwraps to ErrCorrupt.
type PageError struct {
	Reader *Reader // the file's
	Msg    string  // what is wrong, and where
}

func (e *PageError) Error() string { return fmt.Sprintf("%v: %s", ErrCorrupt, e.Msg) }

// Unwrap returns ErrCorrupt.
func (e *PageError) Unwrap() error { return ErrCorrupt }

// runFrom returns the records [first, end) whose hash is h, given first,
// the lower bound of h that LowerBound found. It checks the CRC of every
// page it relies on: the pages of the record before the run, of the run,
// and of the record after it. The file was sorted when written, so a run
// bracketed by smaller and larger hashes on checked pages is the complete
// run, wherever the search's unchecked steps went.
func (r *Reader) runFrom(h, first uint64) (_, end uint64, err error) {
	n := r.h.Records
	checked := ^uint64(0) // the last page checked; pages come in increasing order
	check := func(i uint64) error {
		if pg := i / RecordsPerPage; pg != checked {
			checked = pg
			return r.CheckPage(pg)
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
		if r.HashAt(end) != h {
			break
		}
	}
	return first, end, nil
}

// LowerBound returns the index of the first record whose hash is h or more:
// through the fence when there is one, else by searching the index.
func (r *Reader) LowerBound(h uint64) uint64 {
	if r.fence != nil {
		if i, ok := r.lowerBoundByFence(h); ok {
			return i
		}
	}
	return r.search(h)
}

// lowerBoundByFence finds the lower bound of h through the fence: the one index page it
// names, searched. The fence is not trusted: unless the records around the
// answer bracket h (one below it, the next not), it reports false and the
// caller searches the index. The caller checks the pages of those records,
// so a bracket that holds on them is the true one.
func (r *Reader) lowerBoundByFence(h uint64) (uint64, bool) {
	n := r.h.Records
	lo := r.fence.Find(h) * RecordsPerPage
	if lo >= n {
		return 0, false
	}
	hi := min(lo+RecordsPerPage, n)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if r.HashAt(mid) < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo > 0 && r.HashAt(lo-1) >= h || lo < n && r.HashAt(lo) < h {
		return 0, false
	}
	return lo, true
}

// search returns the index of the first record whose hash is h or more,
// searching the index itself, by interpolation over its pages.
func (r *Reader) search(h uint64) uint64 {
	return interp.LowerBound(r.h.Records, RecordsPerPage, h, r.HashAt)
}

// HashAt returns the hash of record i of a format 1 file, unchecked.
func (r *Reader) HashAt(i uint64) uint64 {
	return binary.LittleEndian.Uint64(r.data[RecordPos(i):])
}

// OffsetAt returns the offset of record i of a format 1 file, unchecked.
func (r *Reader) OffsetAt(i uint64) uint64 {
	return binary.LittleEndian.Uint64(r.data[RecordPos(i)+8:])
}

// CheckPage verifies record page pg: its CRC, its trailer, and the zero
// padding of a last page. A page is checked once per Reader.
func (r *Reader) CheckPage(pg uint64) error {
	if r.checked.Has(pg) {
		return nil
	}
	page := r.data[PageSize*(1+pg):][:PageSize]
	if !crcpage.Intact(page) {
		return r.corrupt("checksum mismatch in record page %d (bytes %d to %d)", pg, PageSize*(1+pg), PageSize*(2+pg))
	}
	le := binary.LittleEndian
	want := uint64(RecordsPerPage)
	if pg == r.h.Pages-1 {
		want = r.h.Records - pg*RecordsPerPage
	}
	k := uint64(le.Uint32(page[PageLenOffset:]))
	if le.Uint64(page[PageNoOffset:]) != pg || k != want || !AllZero(page[RecordSize*k:PageNoOffset]) {
		return r.corrupt("record page %d has a bad trailer", pg)
	}
	// Records strictly increase, by hash then offset, within the page and
	// from the last one of the page before: a duplicated record (with valid
	// checksums) would print a row twice, and miss the one it replaced.
	if slot, ok := outOfOrder(page[:RecordSize*k]); ok {
		return r.corrupt("record %d, on record page %d, does not come after the record before it", pg*RecordsPerPage+uint64(slot), pg)
	}
	if pg > 0 && k > 0 {
		before := r.data[PageSize*pg:][:PageSize]
		prev := before[RecordSize*(RecordsPerPage-1):][:RecordSize]
		if !recordLess(prev, page[:RecordSize]) {
			// The record compared with is on the page before: when that
			// page is damaged, it is the one to blame.
			if !r.checked.Has(pg-1) && !crcpage.Intact(before) {
				return r.corrupt("checksum mismatch in record page %d (bytes %d to %d)", pg-1, PageSize*pg, PageSize*(1+pg))
			}
			return r.corrupt("record %d, the first of record page %d, does not come after the last of the page before", pg*RecordsPerPage, pg)
		}
	}
	r.checked.Add(pg)
	return nil
}

// outOfOrder returns the first record of recs, encoded records, that does
// not come after the one before it, if there is one.
func outOfOrder(recs []byte) (int, bool) {
	for i := RecordSize; i < len(recs); i += RecordSize {
		if !recordLess(recs[i-RecordSize:i], recs[i:i+RecordSize]) {
			return i / RecordSize, true
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

// SearchKey returns what the search for hash h compares with the file's
// keys: h itself in format 1, its fingerprint as a masked hash in format 2.
func (r *Reader) SearchKey(h uint64) uint64 {
	if !r.h.Dense() {
		return h
	}
	shift := uint(64 - r.h.FPBits)
	return h >> shift << shift
}

// Locate returns where the rows of hash h are to be looked for: in format 1
// the first record whose hash is h or more, in format 2 the record page
// where the run of h's fingerprint may start. It reads unchecked pages:
// Offsets checks the answer on checked ones.
func (r *Reader) Locate(h uint64) uint64 {
	if !r.h.Dense() {
		return r.LowerBound(h)
	}
	key := r.SearchKey(h)
	if r.fence != nil {
		return r.fence.Find(key)
	}
	return r.searchPages(key)
}

// searchPages returns the last record page whose first key is below key,
// or 0, searching the index by interpolation over its pages' first keys.
func (r *Reader) searchPages(key uint64) uint64 {
	i := interp.LowerBound(r.h.Pages, 1, key, r.FirstKeyAt)
	return max(i, 1) - 1
}

// FirstKeyAt returns the first key of record page pg, unchecked.
func (r *Reader) FirstKeyAt(pg uint64) uint64 {
	return binary.LittleEndian.Uint64(r.data[PageSize*(1+pg):])
}

// DensePageAt returns record page pg, checked: its CRC and its fields (a
// page is checked once per Reader).
func (r *Reader) DensePageAt(pg uint64) (DensePage, error) {
	page := r.data[PageSize*(1+pg):][:PageSize]
	checked := r.checked.Has(pg)
	if !checked && !crcpage.Intact(page) {
		return DensePage{}, r.corrupt("checksum mismatch in record page %d (bytes %d to %d)", pg, PageSize*(1+pg), PageSize*(2+pg))
	}
	d, err := OpenDensePage(page, pg, int(r.h.FPBits), int(r.h.OffBits))
	if err != nil {
		return DensePage{}, r.corrupt("%v", err)
	}
	if !checked {
		r.checked.Add(pg) // once: an atomic write to a line the lookups of other cores read
	}
	return d, nil
}

// denseOffsets calls fn with the offsets of the run of h's fingerprint,
// from record page start (what Locate found), a page's part of the run at
// a time. The run is complete when bracketed on checked pages: the page it
// starts on begins below the fingerprint (or is the first), and it ends on
// a page that says it does not go on, or the next page begins above it. A
// start the fence named that is not bracketed so is searched for again.
func (r *Reader) denseOffsets(h, start uint64, fn func([]uint64) error) error {
	var buf []uint64
	return r.denseOffsetsOn(h, start, nil, &buf, fn)
}

// denseOffsetsOn is denseOffsets, with record page start opened already
// when open is not nil (a Cursor's), and *buf to hold the offsets passed
// to fn, grown as they need and kept so.
func (r *Reader) denseOffsetsOn(h, start uint64, open *DensePage, buf *[]uint64, fn func([]uint64) error) error {
	key := r.SearchKey(h)
	fp := key >> uint(64-r.h.FPBits)
	if r.h.Pages == 0 {
		return nil
	}
	from := min(start, r.h.Pages-1) // the page the run is looked for from
	trusted := r.fence == nil       // from was found by searching the index, not named by the fence
	retry := func() bool {          // search instead of the fence's answer, once
		if trusted {
			return false
		}
		from, trusted = r.searchPages(key), true
		return true
	}
	found, last := false, uint64(0) // a batch was passed on; its last offset
	for pg := from; ; {
		d := open
		if pg != start || open == nil {
			pd, err := r.DensePageAt(pg)
			if err != nil {
				return err
			}
			d = &pd
		}
		k := d.FirstKey()
		switch {
		case found && k != key:
			return r.corrupt("record page %d does not go on with the run of the page before", pg)
		case !found && pg == from && pg > 0 && k >= key, // the run may start on an earlier page
			!found && pg > from && k < key: // or on a later one
			if retry() {
				pg = from
				continue
			}
			return r.corrupt("record page %d does not bracket the key's fingerprint with its neighbours", pg)
		case !found && pg > from && k > key:
			return nil // beyond the last run of the page before, and below this page: absent
		}
		offs, more, err := d.Lookup(fp, (*buf)[:0])
		if err != nil {
			return r.corrupt("record page %d: %v", pg, err)
		}
		if len(offs) > 0 {
			if found && offs[0] <= last {
				return r.corrupt("record page %d goes on with a row before the last of the page before", pg)
			}
			found, last = true, offs[len(offs)-1]
			if err := fn(offs); err != nil {
				return err
			}
			*buf = offs
		} else if found {
			return r.corrupt("record page %d does not go on with the run of the page before", pg)
		}
		if !more || pg+1 == r.h.Pages {
			return nil
		}
		pg++
	}
}

// Offsets calls fn with the offsets of the candidate rows of hash h, in
// file order, a batch at a time (the slice is valid during the call), from
// at, what Locate found: in format 1 the records of hash h, in format 2 the
// run of h's fingerprint. Every page it relies on is checked.
func (r *Reader) Offsets(h, at uint64, fn func([]uint64) error) error {
	if r.h.Dense() {
		return r.denseOffsets(h, at, fn)
	}
	first, end, err := r.runFrom(h, at)
	if err != nil {
		return err
	}
	var buf [OffsetsBatch]uint64
	for i := first; i < end; {
		offs := buf[:0]
		for ; i < end && len(offs) < len(buf); i++ {
			offs = append(offs, r.OffsetAt(i))
		}
		if err := fn(offs); err != nil {
			return err
		}
	}
	return nil
}

// corrupt returns the *PageError of r that says what format and args say.
func (r *Reader) corrupt(format string, args ...any) error {
	return &PageError{Reader: r, Msg: fmt.Sprintf(format, args...)}
}

// A Cursor looks up hashes on a Reader one after another, for one
// goroutine, keeping the record page it read last open: hashes looked up
// in ascending order, several to a page, find their page without the
// fence's search, opened already, the last restart's fingerprint read
// (see DensePage.restartBefore).
type Cursor struct {
	r      *Reader
	d      DensePage
	pg     uint64
	lo, hi uint64 // a search of the pages' first keys names pg for the keys in (lo, hi] (a wrong fence may not: denseOffsetsOn checks the bracket)
	open   bool
	buf    []uint64
}

// NewCursor returns a cursor on r.
func (r *Reader) NewCursor() *Cursor { return &Cursor{r: r, buf: make([]uint64, 0, 64)} }

// Offsets calls fn with the offsets of the candidate rows of hash h, as
// r.Offsets(h, r.Locate(h), fn) does.
func (c *Cursor) Offsets(h uint64, fn func([]uint64) error) error {
	r := c.r
	if !r.h.Dense() || r.h.Pages == 0 {
		return r.Offsets(h, r.Locate(h), fn)
	}
	key := r.SearchKey(h)
	if !c.open || key <= c.lo && c.pg > 0 || key > c.hi {
		c.open = false
		pg := r.Locate(h)
		if pg >= r.h.Pages {
			return r.denseOffsets(h, pg, fn)
		}
		d, err := r.DensePageAt(pg)
		if err != nil {
			return err
		}
		// Kept for the keys whose page it is, as a search of the pages'
		// first keys finds it: those above its first key, up to the
		// next page's.
		c.d, c.pg, c.lo, c.hi = d, pg, d.FirstKey(), ^uint64(0)
		if pg+1 < r.h.Pages {
			c.hi = r.FirstKeyAt(pg + 1)
		}
		c.open = (pg == 0 || key > c.lo) && key <= c.hi
		if !c.open { // the fence named another page: the search decides
			return r.denseOffsets(h, pg, fn)
		}
	}
	return r.denseOffsetsOn(h, c.pg, &c.d, &c.buf, fn)
}
