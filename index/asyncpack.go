package index

import (
	"sync/atomic"

	"github.com/csvidx/csvidx/sorter"
)

// asyncPacker packs records on a goroutine of its own. The sorter's workers
// emit one at a time, in order: with format 2's packing on the emitting
// goroutine, a worker waited for it instead of sorting its next partition.
// Each batch is copied into one of a few buffers (asyncBuffers of a sorter
// batch each, outside the budget), and an error of the packer comes back
// from a later addBatch or from finish.
type asyncPacker struct {
	w      recordPacker
	jobs   chan []sorter.Record
	free   chan []sorter.Record
	done   chan error
	failed atomic.Bool // the packer has failed: addBatch stops it and returns its error
	err    error       // the packer's error, once stopped
}

const (
	asyncBuffers = 4       // batches in flight between the sorter and the packer
	asyncBatch   = 1 << 16 // records a buffer holds: a sorter batch
)

func newAsyncPacker(w recordPacker) *asyncPacker {
	a := &asyncPacker{w: w, jobs: make(chan []sorter.Record, asyncBuffers), free: make(chan []sorter.Record, asyncBuffers),
		done: make(chan error, 1)}
	for range asyncBuffers {
		a.free <- make([]sorter.Record, 0, asyncBatch)
	}
	jobs := a.jobs // stop sets the field to nil, maybe before this goroutine starts
	go func() {
		var err error
		for b := range jobs {
			if err == nil {
				if err = a.w.addBatch(b); err != nil {
					a.failed.Store(true)
				}
			}
			a.free <- b[:0]
		}
		a.done <- err
	}()
	return a
}

func (a *asyncPacker) addBatch(recs []sorter.Record) error {
	if a.jobs == nil || a.failed.Load() {
		return a.stop()
	}
	buf := <-a.free
	a.jobs <- append(buf[:0], recs...)
	return nil
}

// stop ends the packer goroutine and returns its error.
func (a *asyncPacker) stop() error {
	if a.jobs != nil {
		close(a.jobs)
		a.jobs = nil
		a.err = <-a.done
	}
	return a.err
}

func (a *asyncPacker) finish(h *header) error {
	if err := a.stop(); err != nil {
		return err
	}
	return a.w.finish(h)
}
