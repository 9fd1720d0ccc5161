package sorter

// A sortJob is one partition handed to a worker: it gathers and sorts the
// partition into its own buffers, sends the result, and waits for release
// before it reuses them.
type sortJob struct {
	d       int
	n       int64
	result  chan sortResult
	release chan struct{}
}

type sortResult struct {
	recs []Record
	err  error
}

// sortPool is a set of workers that gather and sort partitions, each in
// its own pair of buffers, allocated once.
type sortPool struct {
	jobs chan sortJob
	done chan struct{}
	n    int
}

func (s *Sorter) startPool(workers int) *sortPool {
	p := &sortPool{jobs: make(chan sortJob), done: make(chan struct{}), n: workers}
	for range workers {
		go func() {
			defer func() { p.done <- struct{}{} }()
			buf := make([]Record, 2*s.largest)
			var r radix
			for j := range p.jobs {
				recs, err := s.gatherSort(j.d, j.n, buf, &r)
				j.result <- sortResult{recs, err}
				<-j.release
			}
		}()
	}
	return p
}

// stop ends the workers, which lets go of their buffers.
func (p *sortPool) stop() {
	close(p.jobs)
	for range p.n {
		<-p.done
	}
}

// finishParallel finishes the partitions as Finish does, sorting up to
// workers partitions at once and emitting them in order. A partition too
// large for memory is finished alone, after everything before it is out and
// the workers have let go of their buffers: it takes the whole budget.
func (s *Sorter) finishParallel(sizes []int64, workers int, out batcher) (err error) {
	var pool *sortPool    // nil while a large partition is finished
	var pending []sortJob // handed out, not yet emitted, in partition order
	// emitOldest emits the oldest pending partition and frees its worker.
	emitOldest := func() error {
		j := pending[0]
		pending = pending[1:]
		r := <-j.result
		if r.err == nil {
			r.err = out.add(r.recs)
		}
		close(j.release)
		return r.err
	}
	defer func() {
		for _, j := range pending { // on error: let the workers go
			<-j.result
			close(j.release)
		}
		if pool != nil {
			pool.stop()
		}
	}()
	for d, n := range sizes {
		switch {
		case n == 0:
		case s.fits(n):
			if len(pending) == workers {
				if err := emitOldest(); err != nil {
					return err
				}
			}
			if pool == nil {
				pool = s.startPool(workers)
			}
			j := sortJob{d: d, n: n, result: make(chan sortResult, 1), release: make(chan struct{})}
			pool.jobs <- j
			pending = append(pending, j)
		default:
			for len(pending) > 0 {
				if err := emitOldest(); err != nil {
					return err
				}
			}
			if pool != nil {
				pool.stop()
				pool = nil
			}
			if err := s.finishLarge(d, out); err != nil {
				return err
			}
		}
	}
	for len(pending) > 0 {
		if err := emitOldest(); err != nil {
			return err
		}
	}
	return nil
}
