package index

import (
	"errors"
	"slices"

	"github.com/csvidx/csvidx/format"
)

// Finding the rows of many keys at once, for a join: the keys are looked
// up in the order of their hashes, so that lookups one after the other
// read the same index pages or their neighbours, and the candidate rows'
// first bytes are loaded many at a time, so that their cache and TLB
// misses overlap instead of each waiting for the one before.

// A Found is a row that [Rows.Find] found: bytes [Start, End) of
// [Index.Data], from the row's first byte through its terminator;
// Terminated is false for a last record with no terminator.
type Found struct {
	Start, End int
	Terminated bool
}

// A hashAt is a key's hash and its place in a batch.
type hashAt struct {
	h uint64
	i int
}

// A findCandidate is a candidate row of a batch's key: pointer-free, as
// the collector then need not scan them.
type findCandidate struct {
	off  uint64
	key  int32 // the key's place in the batch
	tail bool  // a record of the tail, not of the main index
}

// finding is what Find keeps between batches, to reuse.
type finding struct {
	hashes []hashAt
	hs     []uint64 // the hash of each key
	spare  []hashAt // sortByHash's
	cands  []findCandidate
	found  []Found
	runs   [][2]int32 // key i's rows are found[runs[i][0]:runs[i][1]]
	// cursors look up the keys, in the order of their hashes, on the
	// main index and the tail: a page several keys share is read once.
	cursors [2]*format.Cursor
}

// errTooMany stops the gathering of a batch's candidates at its limit.
var errTooMany = errors.New("too many candidates")

// Find finds the rows of keys, as [Rows.Each] finds each key's, for as
// many keys from the first as have at most limit candidate rows in all,
// and returns how many: at least one, unless the first key alone has
// more (look it up with Each then, which streams its rows). Key i's rows
// are then [Rows.Found](i), in file order, until the next Find. It
// finds the rows of a CSV that is mapped ([Index.Data]); otherwise it
// returns 0 too: either way, look the first key up with Each. Call it
// inside [Index.Guard].
func (r *Rows) Find(keys [][]byte, limit int) (int, error) {
	ix, f := r.ix, &r.find
	if ix.csv.mem == nil || len(keys) == 0 {
		return 0, nil
	}
	f.hashes, f.hs = f.hashes[:0], f.hs[:0]
	for i, k := range keys {
		h := ix.hash(k)
		f.hashes = append(f.hashes, hashAt{h, i})
		f.hs = append(f.hs, h)
	}
	f.hashes, f.spare = sortByHash(f.hashes, f.spare)
	n, err := r.gather(limit)
	if n == 0 || err != nil {
		return 0, err
	}
	// The candidates, read in the order they were gathered: each key's
	// after the other, each key's in file order.
	f.found = f.found[:0]
	f.runs = slices.Grow(f.runs[:0], n)[:n]
	clear(f.runs)
	add := func(sp Span) error {
		f.found = append(f.found, Found{sp.Start, sp.End, sp.Terminated})
		return nil
	}
	shadow, last := ix.shadow(), int32(-1)
	var ahead [prefetchRows]uint64
	for k, c := range f.cands {
		if k%prefetchRows == 0 {
			a := ahead[:0]
			for _, n := range f.cands[k:min(len(f.cands), k+prefetchRows)] {
				a = append(a, n.off)
			}
			ix.touchRows(a)
		}
		if c.key != last {
			f.runs[c.key][0] = int32(len(f.found))
			last = c.key
		}
		p, shd := ix.main, shadow
		if c.tail {
			p, shd = ix.tail, ^uint64(0)
		}
		if err := ix.candidate(&r.s, p, c.off, f.hs[c.key], keys[c.key], shd, add); err != nil {
			return 0, err
		}
		f.runs[c.key][1] = int32(len(f.found))
	}
	return n, nil
}

// gather gathers the candidates of the keys of f.hashes, in its order,
// for as many keys from the batch's first as have at most limit in all,
// and returns how many.
func (r *Rows) gather(limit int) (int, error) {
	f := &r.find
	n := len(f.hashes)
	f.cands = f.cands[:0]
	for _, ha := range f.hashes {
		if ha.i >= n {
			continue
		}
		err := r.gatherKey(ha, limit)
		if errors.Is(err, errTooMany) {
			// Past the limit: the batch ends before this key, which
			// waits for the next Find with the keys after it; when it is
			// the batch's first, the others are dropped and it is
			// gathered alone.
			n = max(ha.i, 1)
			f.cands = slices.DeleteFunc(f.cands, func(c findCandidate) bool { return int(c.key) >= n })
			err = nil
			if ha.i == 0 {
				err = r.gatherKey(ha, limit)
			}
		}
		switch {
		case errors.Is(err, errTooMany): // the first alone has more
			return 0, nil
		case err != nil:
			return 0, err
		}
	}
	return n, nil
}

// gatherKey gathers the candidates of one key, or none and errTooMany
// when there would be more than limit in all.
func (r *Rows) gatherKey(ha hashAt, limit int) error {
	ix, f := r.ix, &r.find
	before := len(f.cands)
	err := ix.eachPart(func(p *part, _ uint64) error {
		if p.filter != nil && !p.filter.may(p.searchKey(ha.h)) {
			return nil // no record of it in p
		}
		tail := p != ix.main
		c := &f.cursors[0]
		if tail {
			c = &f.cursors[1]
		}
		if *c == nil {
			*c = p.r.NewCursor()
		}
		return p.cursorOffsets(*c, ha.h, func(offs []uint64) error {
			if len(f.cands)+len(offs) > limit {
				return errTooMany
			}
			for _, off := range offs {
				f.cands = append(f.cands, findCandidate{off, int32(ha.i), tail})
			}
			return nil
		})
	})
	if err != nil {
		f.cands = f.cands[:before]
	}
	return err
}

// Found returns the rows of key i of the last [Rows.Find], in file order.
func (r *Rows) Found(i int) []Found {
	run := r.find.runs[i]
	return r.find.found[run[0]:run[1]]
}

// sortByHash sorts a by the top 16 bits of its hashes, which is order
// enough for lookups one after the other to read the same index pages or
// their neighbours, in two passes of a radix sort through tmp; it returns
// the sorted slice and the other, to reuse.
func sortByHash(a, tmp []hashAt) (sorted, spare []hashAt) {
	tmp = slices.Grow(tmp[:0], len(a))[:len(a)]
	for shift := 48; shift < 64; shift += 8 {
		var at [257]int
		for _, x := range a {
			at[x.h>>shift&0xff+1]++
		}
		for i := 1; i < len(at); i++ {
			at[i] += at[i-1]
		}
		for _, x := range a {
			b := x.h >> shift & 0xff
			tmp[at[b]] = x
			at[b]++
		}
		a, tmp = tmp, a
	}
	return a, tmp
}
