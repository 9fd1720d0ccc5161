package format

import (
	"container/heap"
	"context"

	"github.com/csvidx/csvidx/sorter"
)

// Compacting into format 2: the main index's records and the tail's, both
// read as (fingerprint as a masked hash, offset) in that order, are merged
// into a new main index. A format 2 main index is read as it is; a format 1
// file (any tail, and a main index written before format 2) is read masked:
// its records are sorted by full hash, so the records of one fingerprint
// stand together, in one run per hash, and the runs are merged by offset.

// A Batches yields records in (hash, offset) order, a batch at a time:
// nil at the end. A batch is valid until the next call.
type Batches interface {
	Batch() ([]sorter.Record, error)
}

// MergeBatch is the records a stream hands over at a time, about.
const MergeBatch = 8192

// denseCursor walks the records of a format 2 file, a page at a time,
// checking each page whole.
type denseCursor struct {
	r    *Reader
	pg   uint64
	buf  []sorter.Record
	last sorter.Record // the last record of the page before, for the order across pages
}

func (c *denseCursor) Batch() ([]sorter.Record, error) {
	if c.pg == c.r.h.Pages {
		return nil, nil
	}
	d, err := c.r.DensePageAt(c.pg)
	if err != nil {
		return nil, err
	}
	if c.buf, err = d.Records(c.buf[:0]); err != nil {
		return nil, c.r.corrupt("record page %d: %v", c.pg, err)
	}
	if c.pg > 0 && !RecordBefore(c.last, c.buf[0]) {
		return nil, c.r.corrupt("record page %d does not come after the page before", c.pg)
	}
	c.last = c.buf[len(c.buf)-1]
	c.pg++
	return c.buf, nil
}

// RecordBefore reports whether a sorts before b.
func RecordBefore(a, b sorter.Record) bool {
	return a.Hash < b.Hash || a.Hash == b.Hash && a.Offset < b.Offset
}

// maskedCursor walks the records of a format 1 file with their hashes
// masked, in (masked hash, offset) order. The records of one masked hash
// stand together (a group); a group of one hash is in order already, and
// the runs of a group of several are merged by offset, with a cursor per
// run: it holds no records beyond a batch.
type maskedCursor struct {
	r      *Reader
	mask   uint64
	i      uint64 // the next record
	end    uint64 // the end of the current group
	heap   runHeap
	inHeap bool // the current group is being merged from heap
	buf    []sorter.Record
}

// NewMaskedCursor returns the records of r, a format 1 file, with their
// hashes masked by mask, in (masked hash, offset) order.
func NewMaskedCursor(r *Reader, mask uint64) Batches {
	return &maskedCursor{r: r, mask: mask}
}

// NewDenseCursor returns the records of r, a format 2 file, as (fingerprint
// as a masked hash, offset), in order, each page checked whole.
func NewDenseCursor(r *Reader) Batches { return &denseCursor{r: r} }

// at returns record i, checking its page when i starts one.
func (m *maskedCursor) at(i uint64) (uint64, uint64, error) {
	if i%RecordsPerPage == 0 {
		if err := m.r.CheckPage(i / RecordsPerPage); err != nil {
			return 0, 0, err
		}
	}
	return m.r.HashAt(i), m.r.OffsetAt(i), nil
}

func (m *maskedCursor) Batch() ([]sorter.Record, error) {
	n := m.r.h.Records
	m.buf = m.buf[:0]
	for len(m.buf) < MergeBatch {
		if m.inHeap { // a group of several hashes, merged by offset
			if len(m.heap) == 0 {
				m.inHeap = false
				continue
			}
			top := &m.heap[0]
			m.buf = append(m.buf, sorter.Record{Hash: m.r.HashAt(top.i) & m.mask, Offset: m.r.OffsetAt(top.i)})
			if top.i++; top.i == top.end {
				heap.Pop(&m.heap)
			} else {
				heap.Fix(&m.heap, 0)
			}
			continue
		}
		if m.i == m.end { // the next group
			if m.i == n {
				break
			}
			if err := m.nextGroup(); err != nil {
				return nil, err
			}
			continue
		}
		// A group of one hash: its records as they are.
		for ; m.i < m.end && len(m.buf) < MergeBatch; m.i++ {
			h, o, err := m.at(m.i)
			if err != nil {
				return nil, err
			}
			m.buf = append(m.buf, sorter.Record{Hash: h & m.mask, Offset: o})
		}
	}
	if len(m.buf) == 0 {
		return nil, nil
	}
	return m.buf, nil
}

// nextGroup finds the group that starts at m.i: its end, and, when it holds
// several hashes, their runs, in the heap.
func (m *maskedCursor) nextGroup() error {
	n := m.r.h.Records
	h0, _, err := m.at(m.i)
	if err != nil {
		return err
	}
	key, prev := h0&m.mask, h0
	runs := append(m.heap[:0], runCursor{r: m.r, i: m.i}) // the heap is empty between groups: its room is reused
	e := m.i + 1
	for ; e < n; e++ {
		h, _, err := m.at(e)
		if err != nil {
			return err
		}
		if h&m.mask != key {
			break
		}
		if h != prev {
			runs[len(runs)-1].end = e
			runs = append(runs, runCursor{r: m.r, i: e})
			prev = h
		}
	}
	runs[len(runs)-1].end = e
	m.end = e
	if len(runs) > 1 {
		m.heap, m.inHeap = runs, true
		heap.Init(&m.heap)
		m.i = e // the heap has the group's records
	}
	return nil
}

// runCursor is the rest of one run of equal hashes in a format 1 file:
// records [i, end).
type runCursor struct {
	r      *Reader
	i, end uint64
}

type runHeap []runCursor

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(a, b int) bool { return h[a].r.OffsetAt(h[a].i) < h[b].r.OffsetAt(h[b].i) }
func (h runHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(runCursor)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// MergeDense writes to w the records of main, less those at or past the
// tail's base (which the tail rescanned), merged with the tail's, and
// returns how many it left out.
func MergeDense(ctx context.Context, main, tail Batches, base uint64, w *DensePacker) (uint64, error) {
	var shadowed uint64
	out := make([]sorter.Record, 0, MergeBatch)
	flush := func() error {
		err := w.AddBatch(out)
		out = out[:0]
		return err
	}
	mb, err := main.Batch()
	if err != nil {
		return 0, err
	}
	tb, err := tail.Batch()
	if err != nil {
		return 0, err
	}
	for batches := 0; mb != nil || tb != nil; {
		for len(mb) > 0 && len(out) < cap(out) {
			if len(tb) > 0 && !RecordBefore(mb[0], tb[0]) {
				out = append(out, tb[0])
				tb = tb[1:]
				if len(tb) == 0 {
					break
				}
				continue
			}
			if mb[0].Offset >= base {
				shadowed++
			} else {
				out = append(out, mb[0])
			}
			mb = mb[1:]
		}
		if mb == nil { // main has ended: the tail's rest
			for len(tb) > 0 && len(out) < cap(out) {
				out = append(out, tb[0])
				tb = tb[1:]
			}
		}
		if len(out) == cap(out) {
			if err := flush(); err != nil {
				return 0, err
			}
			if batches++; batches%64 == 0 {
				if err := ctx.Err(); err != nil {
					return 0, err
				}
			}
		}
		if mb != nil && len(mb) == 0 {
			if mb, err = main.Batch(); err != nil {
				return 0, err
			}
		}
		if tb != nil && len(tb) == 0 {
			if tb, err = tail.Batch(); err != nil {
				return 0, err
			}
		}
	}
	return shadowed, flush()
}
