package index

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/sorter"
)

// Compacting into format 2: the main index's records and the tail's, both
// read as (fingerprint as a masked hash, offset) in that order, are merged
// into a new main index. A format 2 main index is read as it is; a format 1
// file (any tail, and a main index written before format 2) is read masked:
// its records are sorted by full hash, so the records of one fingerprint
// stand together, in one run per hash, and the runs are merged by offset.

// recordStream yields records in (hash, offset) order.
type recordStream interface {
	next() (sorter.Record, bool, error)
}

// denseCursor walks the records of a format 2 file, a page at a time,
// checking each page whole.
type denseCursor struct {
	p    *part
	pg   uint64
	recs []sorter.Record // the page's records not yet returned
	last sorter.Record   // the last record returned, for the order across pages
	any  bool
}

func (c *denseCursor) next() (sorter.Record, bool, error) {
	for len(c.recs) == 0 {
		if c.pg == c.p.h.pages {
			return sorter.Record{}, false, nil
		}
		d, err := c.p.densePageAt(c.pg)
		if err != nil {
			return sorter.Record{}, false, err
		}
		err = d.each(func(fp uint64, offs []uint64) error {
			for _, o := range offs {
				c.recs = append(c.recs, sorter.Record{Hash: fp << d.shift, Offset: o})
			}
			return nil
		})
		if err != nil {
			return sorter.Record{}, false, c.p.corrupt("record page %d: %v", c.pg, err)
		}
		if c.any && len(c.recs) > 0 && !recordBefore(c.last, c.recs[0]) {
			return sorter.Record{}, false, c.p.corrupt("record page %d does not come after the page before", c.pg)
		}
		c.pg++
	}
	r := c.recs[0]
	c.recs = c.recs[1:]
	if len(c.recs) == 0 {
		c.recs = c.recs[:0:0] // the next page decodes into a fresh slice's room
	}
	c.last, c.any = r, true
	return r, true, nil
}

// recordBefore reports whether a sorts before b.
func recordBefore(a, b sorter.Record) bool {
	return a.Hash < b.Hash || a.Hash == b.Hash && a.Offset < b.Offset
}

// maskedCursor walks the records of a format 1 file with their hashes
// masked, in (masked hash, offset) order: within the records of one masked
// hash, which stand together, the runs of each full hash are merged by
// offset, so it holds a cursor per hash of the group and no records.
type maskedCursor struct {
	c     cursor // the file's records, in order
	mask  uint64
	ahead *sorter.Record // the first record of the next group, read already
	group runHeap        // the runs of the current group
}

// runCursor is the rest of one run of equal hashes in a format 1 file:
// records [i, end).
type runCursor struct {
	p      *part
	i, end uint64
}

type runHeap []runCursor

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(a, b int) bool { return h[a].p.offsetAt(h[a].i) < h[b].p.offsetAt(h[b].i) }
func (h runHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(runCursor)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newMaskedCursor(p *part, mask uint64) *maskedCursor {
	return &maskedCursor{c: cursor{p: p}, mask: mask}
}

func (m *maskedCursor) next() (sorter.Record, bool, error) {
	if len(m.group) == 0 {
		if err := m.readGroup(); err != nil || len(m.group) == 0 {
			return sorter.Record{}, false, err
		}
	}
	top := &m.group[0]
	r := sorter.Record{Hash: top.p.hashAt(top.i) & m.mask, Offset: top.p.offsetAt(top.i)}
	if top.i++; top.i == top.end {
		heap.Pop(&m.group)
	} else {
		heap.Fix(&m.group, 0)
	}
	return r, true, nil
}

// readGroup reads the runs of the next masked hash, checking their pages
// (the cursor checks each page as it enters it).
func (m *maskedCursor) readGroup() error {
	first := m.ahead
	if first == nil {
		r, ok, err := m.c.next()
		if err != nil || !ok {
			return err
		}
		first = &r
	}
	m.ahead = nil
	start := m.c.i - 1
	key, hash := first.Hash&m.mask, first.Hash
	runStart := start
	for {
		r, ok, err := m.c.next()
		if err != nil {
			return err
		}
		if !ok || r.Hash&m.mask != key {
			m.group = append(m.group, runCursor{p: m.c.p, i: runStart, end: m.c.i - boolInt(ok)})
			if ok {
				m.ahead = &r
			}
			break
		}
		if r.Hash != hash {
			m.group = append(m.group, runCursor{p: m.c.p, i: runStart, end: m.c.i - 1})
			runStart, hash = m.c.i-1, r.Hash
		}
	}
	heap.Init(&m.group)
	return nil
}

func boolInt(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// mergeDense writes to w the records of main, less those at or past the
// tail's base (which the tail rescanned), merged with the tail's, and
// returns how many it left out.
func mergeDense(ctx context.Context, main, tail recordStream, base uint64, w *densePacker) (uint64, error) {
	var shadowed uint64
	m, mok, err := main.next()
	if err != nil {
		return 0, err
	}
	t, tok, err := tail.next()
	if err != nil {
		return 0, err
	}
	for n := 0; mok || tok; n++ {
		if n%(mergeCheckPages*recordsPerPage) == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if mok && (!tok || recordBefore(m, t)) {
			if m.Offset >= base {
				shadowed++
			} else if err := w.add(m.Hash, m.Offset); err != nil {
				return 0, err
			}
			if m, mok, err = main.next(); err != nil {
				return 0, err
			}
			continue
		}
		if err := w.add(t.Hash, t.Offset); err != nil {
			return 0, err
		}
		if t, tok, err = tail.next(); err != nil {
			return 0, err
		}
	}
	return shadowed, nil
}

// shadowedRecords returns how many records of main the tail shadows: its
// last row, indexed without its newline, if it had a key (the tail
// rescanned it from its start, main.resume).
func shadowedRecords(csv *csvFile, main *header) (uint64, error) {
	if main.resume >= main.scanned {
		return 0, nil
	}
	s, err := scan.New(csv.data[:main.scanned], main.delim, int(main.keyCol))
	if err != nil {
		return 0, err
	}
	s.Reset(int(main.resume))
	if !s.Next() {
		return 0, fmt.Errorf("%w: no row at the main index's resume offset %d", ErrCorrupt, main.resume)
	}
	if _, ok := s.Key(); ok {
		return 1, nil
	}
	return 0, nil
}
