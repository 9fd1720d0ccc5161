package format

import (
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/sorter"
)

// aheadBuffers is how many batches an Ahead holds: one the reader
// has, one waiting, one being filled.
const aheadBuffers = 3

// aheadBatchRecords is how many records, about, an Ahead hands over
// at a time: the batches of many pages, since waking the other goroutine
// costs tens of microseconds on a virtual machine.
const aheadBatchRecords = 1 << 16

// An Ahead reads a Batches on a goroutine of its own, a batch or
// two ahead of its reader, so that a compaction decodes the main index on
// one core while it merges and packs on the other. Its batches are copies,
// valid until the next call, as Batches says. Stop ends the goroutine;
// the reader calls it before the stream's files are closed.
type Ahead struct {
	batches chan aheadBatch
	free    chan []sorter.Record
	done    chan struct{}
	cur     []sorter.Record
	stopped bool
}

// aheadBatch is one batch, or the error that ended the stream.
type aheadBatch struct {
	recs []sorter.Record
	err  error
}

// ReadAhead starts reading s, whose batches come from maps: a fault on them
// (a file that shrank) ends the stream with mapping.ErrFault, as it would in
// the reader's own mapping.Guard.
func ReadAhead(s Batches, maps ...*mapping.Map) *Ahead {
	a := &Ahead{
		batches: make(chan aheadBatch, aheadBuffers-1),
		free:    make(chan []sorter.Record, aheadBuffers),
		done:    make(chan struct{}),
	}
	for range aheadBuffers {
		a.free <- make([]sorter.Record, 0, aheadBatchRecords+MergeBatch)
	}
	go a.fill(s, maps)
	return a
}

// fill copies the batches of s into free buffers and hands them over until s
// ends, fails, or the reader stops.
func (a *Ahead) fill(s Batches, maps []*mapping.Map) {
	defer close(a.batches)
	err := mapping.Guard(func() error {
		for {
			var buf []sorter.Record
			select {
			case buf = <-a.free:
			case <-a.done:
				return nil
			}
			buf = buf[:0]
			for len(buf) < aheadBatchRecords {
				b, err := s.Batch()
				if err != nil {
					return err
				}
				if b == nil {
					break
				}
				buf = append(buf, b...)
			}
			if len(buf) == 0 {
				return nil
			}
			select {
			case a.batches <- aheadBatch{recs: buf}:
			case <-a.done:
				return nil
			}
		}
	}, maps...)
	if err != nil {
		select {
		case a.batches <- aheadBatch{err: err}:
		case <-a.done:
		}
	}
}

// Batch returns the next batch, as Batches does: a copy, valid until the
// next call; nil at the end.
func (a *Ahead) Batch() ([]sorter.Record, error) {
	if a.cur != nil {
		a.free <- a.cur // never blocks: free holds every buffer
		a.cur = nil
	}
	r, ok := <-a.batches
	if !ok {
		return nil, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	a.cur = r.recs
	return r.recs, nil
}

// Stop ends the goroutine and waits for it; it may be called more than once.
func (a *Ahead) Stop() {
	if a.stopped {
		return
	}
	a.stopped = true
	close(a.done)
	for range a.batches { // until fill has returned
	}
}
