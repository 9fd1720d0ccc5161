package index

import (
	"encoding/binary"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/interp"
)

// Lookups in a format 2 main index (see package format: dense.go, densepage.go).

// searchKey returns what the search for hash h compares with the file's
// keys: h itself in format 1, its fingerprint as a masked hash in format 2.
func (p *part) searchKey(h uint64) uint64 {
	if !p.h.Dense() {
		return h
	}
	shift := uint(64 - p.h.FPBits)
	return h >> shift << shift
}

// locate returns where the rows of hash h are to be looked for: in format 1
// the first record whose hash is h or more, in format 2 the record page
// where the run of h's fingerprint may start. It reads unchecked pages:
// offsets checks the answer on checked ones.
func (p *part) locate(h uint64) uint64 {
	if !p.h.Dense() {
		return p.lowerBound(h)
	}
	key := p.searchKey(h)
	if p.fence != nil {
		return p.fence.Find(key)
	}
	return p.searchPages(key)
}

// searchPages returns the last record page whose first key is below key,
// or 0, searching the index by interpolation over its pages' first keys.
func (p *part) searchPages(key uint64) uint64 {
	i := interp.LowerBound(p.h.Pages, 1, key, p.firstKeyAt)
	return max(i, 1) - 1
}

// firstKeyAt returns the first key of record page pg, unchecked.
func (p *part) firstKeyAt(pg uint64) uint64 {
	return binary.LittleEndian.Uint64(p.data[format.PageSize*(1+pg):])
}

// densePageAt returns record page pg, checked: its CRC and its fields (a
// page is checked once per open index).
func (p *part) densePageAt(pg uint64) (format.DensePage, error) {
	page := p.data[format.PageSize*(1+pg):][:format.PageSize]
	if !p.checked.Has(pg) && !crcpage.Intact(page) {
		return format.DensePage{}, p.corrupt("checksum mismatch in record page %d (bytes %d to %d)", pg, format.PageSize*(1+pg), format.PageSize*(2+pg))
	}
	d, err := format.OpenDensePage(page, pg, int(p.h.FPBits), int(p.h.OffBits))
	if err != nil {
		return format.DensePage{}, p.corrupt("%v", err)
	}
	p.checked.Add(pg)
	return d, nil
}

// denseOffsets calls fn with the offsets of the run of h's fingerprint,
// from record page start (what locate found), a page's part of the run at
// a time. The run is complete when bracketed on checked pages: the page it
// starts on begins below the fingerprint (or is the first), and it ends on
// a page that says it does not go on, or the next page begins above it. A
// start the fence named that is not bracketed so is searched for again.
func (p *part) denseOffsets(h, start uint64, fn func([]uint64) error) error {
	key := p.searchKey(h)
	fp := key >> uint(64-p.h.FPBits)
	if p.h.Pages == 0 {
		return nil
	}
	from := min(start, p.h.Pages-1) // the page the run is looked for from
	trusted := p.fence == nil       // from was found by searching the index, not named by the fence
	retry := func() bool {          // search instead of the fence's answer, once
		if trusted {
			return false
		}
		from, trusted = p.searchPages(key), true
		return true
	}
	var buf []uint64
	found, last := false, uint64(0) // a batch was passed on; its last offset
	for pg := from; ; {
		d, err := p.densePageAt(pg)
		if err != nil {
			return err
		}
		k := d.FirstKey()
		switch {
		case found && k != key:
			return p.corrupt("record page %d does not go on with the run of the page before", pg)
		case !found && pg == from && pg > 0 && k >= key, // the run may start on an earlier page
			!found && pg > from && k < key: // or on a later one
			if retry() {
				pg = from
				continue
			}
			return p.corrupt("record page %d does not bracket the key's fingerprint with its neighbours", pg)
		case !found && pg > from && k > key:
			return nil // beyond the last run of the page before, and below this page: absent
		}
		offs, more, err := d.Lookup(fp, buf[:0])
		if err != nil {
			return p.corrupt("record page %d: %v", pg, err)
		}
		if len(offs) > 0 {
			if found && offs[0] <= last {
				return p.corrupt("record page %d goes on with a row before the last of the page before", pg)
			}
			found, last = true, offs[len(offs)-1]
			if err := fn(offs); err != nil {
				return err
			}
			buf = offs
		} else if found {
			return p.corrupt("record page %d does not go on with the run of the page before", pg)
		}
		if !more || pg+1 == p.h.Pages {
			return nil
		}
		pg++
	}
}

// offsets calls fn with the offsets of the candidate rows of hash h, in
// file order, a batch at a time (the slice is valid during the call), from
// at, what locate found: in format 1 the records of hash h, in format 2 the
// run of h's fingerprint. Every page it relies on is checked.
func (p *part) offsets(h, at uint64, fn func([]uint64) error) error {
	if p.h.Dense() {
		return p.denseOffsets(h, at, fn)
	}
	first, end, err := p.runFrom(h, at)
	if err != nil {
		return err
	}
	var buf [coldAhead]uint64
	for i := first; i < end; {
		offs := buf[:0]
		for ; i < end && len(offs) < len(buf); i++ {
			offs = append(offs, p.offsetAt(i))
		}
		if err := fn(offs); err != nil {
			return err
		}
	}
	return nil
}
