package sorter

import "sync"

// finishParallel finishes the partitions as Finish does, with workers
// goroutines sorting partitions in sets pairs of buffers (sets >= workers).
// A partition too large for memory is finished alone, after everything
// before it is out and the workers have let go of their buffers: it takes
// the whole budget.
func (s *Sorter) finishParallel(sizes []int64, workers, sets int, out batcher) error {
	var run []int // partitions to sort in memory, in order, up to the next large one
	for d, n := range sizes {
		switch {
		case n == 0:
		case s.fits(n):
			run = append(run, d)
		default:
			if err := s.sortRun(run, sizes, workers, sets, out); err != nil {
				return err
			}
			run = run[:0]
			if err := s.finishLarge(d, out); err != nil {
				return err
			}
		}
	}
	return s.sortRun(run, sizes, workers, sets, out)
}

// sortRun sorts partitions ds and emits them in order. Each worker takes a
// free pair of buffers, then the next partition, sorts it, and leaves the
// result in its slot; whichever worker finds the oldest result ready emits
// it and every ready one after it, while the others sort on. So there is no
// emitting goroutine to hand results to and wake: on two cores, a third
// goroutine waited for a core for up to the scheduler's 10 ms time slice at
// each hand-off, and the workers for it. A pair is taken before the
// partition, so the oldest partition not yet emitted always has one.
func (s *Sorter) sortRun(ds []int, sizes []int64, workers, sets int, out batcher) error {
	if len(ds) == 0 {
		return nil
	}
	bufs := make(chan []Record, sets)
	for range sets {
		bufs <- make([]Record, 2*s.largest)
	}
	type result struct {
		recs, buf []Record
		err       error
		ready     bool
	}
	var (
		mu       sync.Mutex
		results  = make([]result, len(ds))
		claimed  int   // partitions of ds handed out
		next     int   // the oldest not yet emitted
		emitting bool  // a worker is emitting: the others only leave results
		failed   error // the first error: no more partitions are handed out
	)
	// emitReady emits the ready results from next on, with mu held on entry
	// and on return, and releases it while it emits.
	emitReady := func() {
		emitting = true
		for next < len(ds) && results[next].ready {
			r := results[next]
			results[next] = result{}
			next++
			stop := failed != nil // after a failure, only the buffers go back
			mu.Unlock()
			err := r.err
			if err == nil && !stop {
				err = out.add(r.recs)
			}
			bufs <- r.buf
			mu.Lock()
			if err != nil && failed == nil {
				failed = err
			}
		}
		emitting = false
	}
	var wg sync.WaitGroup
	for range min(workers, len(ds)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r radix
			for {
				buf := <-bufs
				mu.Lock()
				if claimed == len(ds) || failed != nil {
					mu.Unlock()
					bufs <- buf
					return
				}
				i := claimed
				claimed++
				mu.Unlock()
				d := ds[i]
				recs, err := s.gatherSort(d, sizes[d], buf, &r)
				mu.Lock()
				results[i] = result{recs: recs, buf: buf, err: err, ready: true}
				if !emitting && i == next {
					emitReady()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Every claimed partition was sorted and left ready, and the worker that
	// left the oldest one emitted it and the ready ones after it; after a
	// failure, some may be left unemitted.
	return failed
}
