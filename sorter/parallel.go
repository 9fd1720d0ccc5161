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

// finishParallel finishes the partitions as Finish does, sorting up to
// workers partitions at once and emitting them in order. A partition too
// large for memory is finished alone, after everything before it is out.
func (s *Sorter) finishParallel(sizes []int64, workers int, out batcher) (err error) {
	jobs := make(chan sortJob)
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			buf := make([]Record, 2*s.largest)
			var r radix
			for j := range jobs {
				recs, err := s.gatherSort(j.d, j.n, buf, &r)
				j.result <- sortResult{recs, err}
				<-j.release
			}
		}()
	}
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
		close(jobs)
		for range workers {
			<-done
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
			j := sortJob{d: d, n: n, result: make(chan sortResult, 1), release: make(chan struct{})}
			jobs <- j
			pending = append(pending, j)
		default:
			for len(pending) > 0 {
				if err := emitOldest(); err != nil {
					return err
				}
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
