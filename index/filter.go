package index

import (
	"math/bits"

	"github.com/csvidx/csvidx/format"
)

// A keyFilter says of a hash whether an index file may hold records of
// it: a bit per value of the top bits of the keys the file's records hold
// (fingerprints as masked hashes in format 2, whole hashes in format 1),
// as many bits as the bitmap takes. It has no
// false negatives; a hash whose bit is clear has no candidate row, and
// its lookup reads no page. A join whose LEFT keys are mostly absent from
// RIGHT looks them up for the price of one memory read each.
type keyFilter struct {
	bits  []uint64
	shift uint // a key's bit is key >> shift
}

// filterBitsPerRun is the bits a filter gives each run, at most: a clear
// bit then answers about 15 absent keys in 16 (1 - 1/16 of the bits are
// clear). filterMinBits is the fewest worth the building: 4 answer 3 in 4.
const (
	filterBitsPerRun = 16
	filterMinBits    = 4
)

// newKeyFilter builds the filter of p within maxBytes, reading its records
// as compact does (format.NewDenseCursor, NewMaskedCursor), or returns nil
// when the bitmap would give its runs fewer than filterMinBits each.
func newKeyFilter(p *part, maxBytes int64) (*keyFilter, error) {
	runs := max(p.h.Records, 1) // runs are at most the records
	keyBits := uint(64)         // a format 1 file's keys are whole hashes
	recs := format.NewMaskedCursor(p.r, ^uint64(0))
	if p.h.Dense() {
		keyBits, recs = uint(p.h.FPBits), format.NewDenseCursor(p.r)
	}
	want := uint(bits.Len64(runs*filterBitsPerRun - 1))
	have := uint(bits.Len64(uint64(max(maxBytes, 8))*8) - 1) // a power of two within maxBytes
	logBits := min(want, have, keyBits)
	if uint64(1)<<logBits < runs*filterMinBits || logBits < 6 {
		return nil, nil
	}
	f := &keyFilter{bits: make([]uint64, 1<<(logBits-6)), shift: 64 - logBits}
	for {
		batch, err := recs.Batch()
		if err != nil {
			return nil, p.reading(err)
		}
		if batch == nil {
			return f, nil
		}
		for _, rec := range batch {
			b := rec.Hash >> f.shift
			f.bits[b>>6] |= 1 << (b & 63)
		}
	}
}

// may reports whether key (a masked hash, p.searchKey) may have records.
func (f *keyFilter) may(key uint64) bool {
	b := key >> f.shift
	return f.bits[b>>6]&(1<<(b&63)) != 0
}

// UseFilters makes the lookups of [Rows.Find] ask a filter of each index
// file first, built now within maxBytes in all (one read of the index
// files), and skip the keys it says the file has no records of: cheaper
// lookups of absent keys, for a join of many keys of which many are
// absent. Call it before any Find, not while lookups run; it may build no
// filter (too little memory for one to be worth it).
func (ix *Index) UseFilters(maxBytes int64) error {
	return ix.Guard(func() error {
		parts := []*part{ix.main}
		if ix.tail != nil {
			parts = append(parts, ix.tail)
		}
		var records uint64
		for _, p := range parts {
			records += max(p.h.Records, 1)
		}
		for _, p := range parts {
			f, err := newKeyFilter(p, int64(float64(maxBytes)*float64(max(p.h.Records, 1))/float64(records)))
			if err != nil {
				return err
			}
			p.filter = f
		}
		return nil
	})
}

// Records returns how many records the index files hold: about the rows
// with the key that the index covers.
func (ix *Index) Records() int64 {
	n := int64(ix.main.h.Records)
	if ix.tail != nil {
		n += int64(ix.tail.h.Records)
	}
	return n
}
