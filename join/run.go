package join

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/csvidx/csvidx/scan"
)

// joinRun is what a join keeps as it runs (see Join.Run). LEFT's records
// are read in batches by one goroutine and joined by workers, one per
// core, each into an output buffer of its own; the batches' outputs go
// out in LEFT's order (see joinWorker).
type joinRun struct {
	*Join
	ctx        context.Context
	cancel     context.CancelCauseFunc
	out        *bufio.Writer
	rows       atomic.Int64 // data rows written
	leftRead   atomic.Int64 // LEFT's bytes read, through the last record handed to the workers
	leftRows   atomic.Int64 // LEFT's data records handed to the workers
	rightRead  atomic.Int64 // RIGHT's bytes gone through after LEFT's end (see rightAfterLeft)
	rightTotal atomic.Int64 // of these many; 0 until then
	leftFields int          // in LEFT's header, or its first record
	null       []byte       // the key whose fields are all empty
	emptyLeft  []byte       // LEFT's fields, empty
	emptyRight []byte       // RIGHT's fields in the output, empty
	co         coalescing   // printing the key once (Options.Coalesce)
	matched    *rowBits     // the RIGHT rows a LEFT row matched, for the modes that keep them (keepsRight)
	workers    int
	ahead      int64     // each worker's lookups after which RIGHT is read ahead, or 0 for never
	aheadOnce  sync.Once // reads RIGHT ahead once, whichever worker gets there first
}

// readAheadShare is the share of RIGHT's pages (the CSV's and its index's)
// that many lookups must reach for ReadAheadAuto to read RIGHT ahead: on a
// cold cache, that many lookups, reading a page or two at random each,
// took as long as reading the files in order (between 2% and 3% of the
// pages: see docs/performance.md, "Joins"). When LEFT is a file whose rows
// can be estimated, the join reads ahead from the start if they reach it.
const readAheadShare = 0.025

// A join whose LEFT has at least filterRows rows for each of RIGHT's
// records filters its keys through a bitmap of RIGHT's fingerprints (see
// index.Index.UseFilters) of at most filterBytes, a quarter of the memory
// limit at most: 2 MiB for a RIGHT of a million keys. Building it reads
// RIGHT's index once, 23 ns a record warm (100-120 ns when the index was
// just opened: its pages faulted in and checked); a key it turns away saves a
// lookup, about 200 ns. (filterRows is a variable, for tests.)
var filterRows int64 = 2

const filterBytes = 8 << 20

// probed counts a lookup of w, and reads RIGHT ahead at the one that
// reaches r.ahead: the workers share the lookups about equally, and count
// them each without touching a shared counter.
func (w *joinWorker) probed() {
	if w.ahead == 0 {
		return
	}
	if w.probes++; w.probes == w.ahead {
		w.aheadOnce.Do(w.readAhead)
	}
}

// readAhead reads RIGHT ahead (see Index.ReadAhead) until the join ends.
func (r *joinRun) readAhead() { r.ix.ReadAhead(r.ctx) }

// errFound stops a lookup at its first row.
var errFound = errors.New("found")

func (r *joinRun) run() error {
	if err := r.setUp(); err != nil {
		return err
	}
	defer r.matched.close()
	w, err := r.newWorker()
	if err != nil {
		return err
	}
	if r.first != nil || (r.opts.Mode == RightSemi || r.opts.Mode == RightAnti) && !r.opts.NoHeader {
		w.writeHeader(r.first, r.firstEnd, r.names)
		if err := w.flush(); err != nil {
			return err
		}
	}
	if r.cols != nil { // LEFT has a record after its header
		if err := r.joinLeft(); err != nil {
			return err
		}
	}
	if r.matched != nil {
		return r.matched.guard(w.rightAfterLeft)
	}
	return nil
}

// setUp makes what every row takes: the empty sides, the null key and, for
// the modes that print RIGHT's rows after LEFT's (keepsRight), the bitmap.
func (r *joinRun) setUp() error {
	rightFields := r.right.fields
	if r.opts.Coalesce && r.cols != nil { // an empty LEFT has no key columns to hold RIGHT's key
		r.co, rightFields = newCoalescing(r.ix.KeyColumns(), r.cols, r.leftFields, r.right.fields)
	}
	r.emptyLeft = bytes.Repeat([]byte{r.delim}, max(r.leftFields, 1)-1)
	r.emptyRight = bytes.Repeat([]byte{r.delim}, max(rightFields, 1)-1)
	if rightFields == 0 {
		r.emptyRight = nil // no RIGHT field at all: its key's alone, printed once (see writeLine)
	}
	if len(r.cols) > 1 {
		r.null = scan.AppendComposite(nil, make([][]byte, len(r.cols)))
	} else {
		r.null = []byte{}
	}
	if r.opts.Mode.keepsRight() {
		res := r.opts.Resources
		dir := res.TmpDir
		if dir == "" {
			dir = filepath.Dir(r.ix.IndexPath())
		}
		var err error
		r.matched, err = newRowBits(r.right.start, r.ix.Covered(), slices.Max(r.ix.KeyColumns()), res.MemBudget(), dir)
		if err != nil {
			return err
		}
	}
	r.workers = r.opts.Resources.ThreadCount()
	leftRows := r.rs.RowsLeft()
	if r.ix.Data() != nil && leftRows >= filterRows*r.ix.Records() {
		// Many keys to look up: a filter of RIGHT's fingerprints answers
		// those RIGHT has not for a memory read each, and costs a read of
		// its index, less than the lookups.
		if err := r.ix.UseFilters(min(r.opts.Resources.MemBudget()/4, filterBytes)); err != nil {
			return err
		}
	}
	switch r.opts.ReadAhead {
	case ReadAheadAlways:
		r.readAhead()
	case ReadAheadAuto:
		pages := r.ix.Pages()
		total := max(1, int64(float64(pages)*readAheadShare))
		if leftRows >= total {
			r.readAhead() // LEFT, a file, has that many rows: no need to wait for them
		} else {
			r.ahead = max(1, total/int64(r.workers))
		}
	}
	return nil
}

// joinLeft reads LEFT's data records in batches and has the workers join
// them, each batch's output written once the batch before it is.
func (r *joinRun) joinLeft() error {
	work := make(chan *joinBatch, r.workers)
	free := make(chan *joinBatch, 2*r.workers+1) // batches in flight: the memory bound
	for range cap(free) {
		free <- new(joinBatch)
	}
	workers := make([]*joinWorker, r.workers)
	for i := range workers { // all before any starts: an error then leaves none waiting
		var err error
		if workers[i], err = r.newWorker(); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			err := r.ix.Guard(func() error { return r.matched.guard(func() error { return w.work(work, free) }) })
			if err != nil {
				r.cancel(err)
			}
		})
	}
	readErr := r.readBatches(work, free)
	close(work)
	wg.Wait()
	if err := context.Cause(r.ctx); err != nil {
		return err
	}
	return readErr
}

// readBatches reads LEFT into batches from free and hands them to work, in
// order, until LEFT ends or the join is cancelled.
func (r *joinRun) readBatches(work, free chan *joinBatch) error {
	prev := make(chan struct{})
	close(prev) // the first batch writes at once
	for {
		var b *joinBatch
		select {
		case b = <-free:
		case <-r.ctx.Done():
			return nil
		}
		b.reset(prev)
		var end int64 // where the batch's last record ends in LEFT
		for b.room() {
			more, err := r.rs.Next()
			if err != nil {
				err = fmt.Errorf("the left file: %w", err)
				r.cancel(err)
				return err
			}
			if !more {
				break
			}
			key, has := r.rs.Scanner().Key()
			rec := r.rs.Record()
			b.add(rec, key, has)
			b.open = !r.rs.Scanner().Terminated() // only LEFT's last record can be
			end = r.rs.Offset() + int64(len(rec))
		}
		if len(b.ends) == 0 { // LEFT ended
			free <- b
			return nil
		}
		r.leftRead.Store(end)
		r.leftRows.Add(int64(len(b.ends)))
		prev = b.done
		select { // the workers may all have stopped on an error: none takes b then
		case work <- b:
		case <-r.ctx.Done():
			return nil
		}
	}
}

// prefixed returns names, each with prefix before it.
func prefixed(prefix string, names [][]byte) [][]byte {
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = append([]byte(prefix), n...)
	}
	return out
}
