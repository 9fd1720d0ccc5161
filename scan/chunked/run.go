package chunked

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"github.com/csvidx/csvidx/sorter"
)

// A run is one parallel scan (see the package documentation): hand-out
// hands the chunks to the workers, no more than the window ahead of the
// stitching; the workers guess where their chunks start and scan them from
// there; and the stitcher takes their results in order, checks the guesses
// and hands the records to the sink.
//
// Chunk k covers the records that start in [bound(k), limit(k)). Nothing is
// kept per chunk: a file of any size scans in fixed memory.
type run struct {
	s      *Scan
	sinks  []Sink // key j's records go to sinks[j]
	start  int    // where the first record starts
	chunks int
	cols   int // fields most records have, for guessing where chunks start (see guessStart); 0 unknown

	tokens chan struct{} // chunks in flight
	jobs   chan int      // chunks handed out
	// Chunk k's result goes through results[k%len(results)]: a chunk is
	// handed out only with a token, which comes back once the chunk is
	// stitched, so no two chunks in flight share a channel.
	results []chan chunkResult
	// Groups go round between the workers and the stitcher, a set of one
	// per sink. The sink takes a large group's buffer over and hands back
	// one it spilled, if any: fresh memory is slow to touch, and a
	// sync.Pool would drop the buffers at each GC.
	groups   chan []*sorter.Group
	stitched atomic.Int64 // where the next chunk really starts, as far as known
	admitted *admission   // whether workers scan from their guesses
}

// chunkResult is a worker's result for a chunk: where it guessed the chunk
// starts and, if it scanned the chunk from there, its records grouped by
// partition for each sink; or from -1 when no record starts in the chunk.
type chunkResult struct {
	from, stop int
	full       bool            // the scan stopped at the records a chunk may hold (the rest may be empty)
	unscanned  bool            // only guessed, not scanned (see admission)
	groups     []*sorter.Group // one per sink
	t          Tally
	err        error
}

// newRun prepares a parallel scan of s's records from start to sinks.
func (s *Scan) newRun(start int, sinks []Sink) (*run, error) {
	p := s.Plan
	cols, err := s.usualFieldsAt(start)
	if err != nil {
		return nil, err
	}
	r := &run{s: s, sinks: sinks, start: start, chunks: 1 + (s.size()-1-start)/p.ChunkBytes,
		cols:     cols,
		tokens:   make(chan struct{}, p.Threads*chunksPerWorker),
		jobs:     make(chan int),
		admitted: &admission{threads: int32(p.Threads), pauseAt: p.PauseAt},
	}
	r.results = make([]chan chunkResult, cap(r.tokens))
	for i := range r.results {
		r.results[i] = make(chan chunkResult, 1)
	}
	r.groups = make(chan []*sorter.Group, cap(r.tokens)+p.Threads)
	r.stitched.Store(int64(start))
	return r, nil
}

func (r *run) bound(k int) int { return r.start + k*r.s.Plan.ChunkBytes }

func (r *run) limit(k int) int {
	if k+1 < r.chunks {
		return r.bound(k + 1)
	}
	return math.MaxInt
}

// scan runs the hand-out and the workers, and stitches on the caller's
// goroutine.
func (r *run) scan(ctx context.Context) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel() // stops the hand-out, which stops the workers
		wg.Wait()
	}()
	go r.handOut(ctx)
	for range r.s.Plan.Threads {
		wg.Go(r.work)
	}
	return r.stitch(ctx)
}

// handOut hands out the chunks, each with a token, so no more than the
// window ahead of the stitching.
func (r *run) handOut(ctx context.Context) {
	defer close(r.jobs)
	for k := range r.chunks {
		select {
		case r.tokens <- struct{}{}:
		case <-ctx.Done():
			return
		}
		select {
		case r.jobs <- k:
		case <-ctx.Done():
			return
		}
	}
}

// work is a worker: for each chunk handed out, it guesses where the chunk
// starts and, if admitted, scans it from there and groups its records.
func (r *run) work() {
	limit := r.s.Plan.ChunkRecords
	recs := newBuffers(len(r.sinks), min(batchRecords, limit)) // each grows to the largest chunk's records, up to ChunkRecords
	dists := make([]*sorter.Distributor, len(r.sinks))
	for j, sink := range r.sinks {
		dists[j] = sink.NewDistributor()
	}
	for k := range r.jobs {
		if r.limit(k) <= int(r.stitched.Load()) {
			// A record stitched already runs past this chunk (a field of
			// gigabytes): no record starts in it.
			r.results[k%len(r.results)] <- chunkResult{from: -1, t: Tally{Resume: -1}}
			continue
		}
		var c chunkResult
		fromGuess := r.admitted.admit(k)
		c = r.scanChunk(k, recs, fromGuess)
		if c.err == nil && fromGuess {
			select {
			case c.groups = <-r.groups:
			default:
				c.groups = make([]*sorter.Group, len(r.sinks))
				for j := range c.groups {
					c.groups[j] = new(sorter.Group)
				}
			}
			for j, d := range dists {
				if c.err == nil {
					c.err = d.Group(c.groups[j], recs[j])
				}
			}
		}
		if fromGuess {
			r.admitted.done()
		}
		r.results[k%len(r.results)] <- c
	}
}

// scanChunk scans chunk k from its guessed start (chunk 0 from start, where
// the data's records begin), collecting up to ChunkRecords records per sink
// in recs, whose room is reused, and leaving them there. Unless fromGuess,
// it only guesses the start (see admission).
func (r *run) scanChunk(k int, recs [][]sorter.Record, fromGuess bool) chunkResult {
	s, hold, limit := r.s, r.s.Plan.ChunkRecords, r.limit(k)
	c := chunkResult{from: r.start, unscanned: !fromGuess, t: Tally{Resume: -1}}
	c.err = s.guard(func() error {
		var err error
		if k > 0 {
			if c.from, err = s.guess(r.bound(k), limit, r.cols); err != nil {
				return err
			}
		}
		if !fromGuess {
			return nil
		}
		adds := make([]adder, len(recs))
		for j := range recs {
			recs[j] = recs[j][:0:min(cap(recs[j]), hold)]
			adds[j] = collect(&recs[j], hold)
		}
		if _, m, _ := s.mem(); m != nil {
			m.Populate(c.from, limit)
		}
		c.stop, c.t, err = s.scanRange(c.from, limit, recs, adds)
		if err == errChunkFull {
			c.full, err = true, nil
		}
		return err
	})
	return c
}

// stitch takes the chunks' results in order, checks each guess against
// where the chunk really starts, and hands the records to the sink: a
// worker's, when its guess was right, else its own scan's.
func (r *run) stitch(ctx context.Context) (Result, error) {
	s, size := r.s, r.s.size()
	res := Result{Tally: Tally{Resume: -1}, Stats: Stats{Chunks: r.chunks}}
	expect := r.start // where the next chunk really starts
	bufs, adds := newBuffers(len(r.sinks), batchRecords), toSinks(r.sinks)
	for k := range r.chunks {
		var c chunkResult
		select {
		case c = <-r.results[k%len(r.results)]:
		case <-ctx.Done():
			return res, ctx.Err()
		}
		if c.err != nil {
			return res, c.err
		}
		rest, err := r.settle(k, &c, expect, &res.Stats)
		if err != nil {
			return res, err
		}
		if rest >= 0 {
			r.admitted.begin()
			stop, t, err := s.scanRange(rest, r.limit(k), bufs, adds)
			r.admitted.done()
			if err != nil {
				return res, err
			}
			c.t.add(t)
			c.stop = stop
		}
		res.add(c.t)
		expect = c.stop
		r.stitched.Store(int64(expect))
		inputDone(r.sinks, int64(expect-r.start), int64(size-r.start))
		if c.groups != nil {
			select {
			case r.groups <- c.groups:
			default:
			}
		}
		<-r.tokens
		if s.Progress != nil {
			s.Progress(int64(min(expect, size)), int64(size))
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// settle judges chunk k's result c, given where the chunk really starts
// (expect): it hands a right guess's records to the sink, counts the
// chunk's kind in st, and returns where the stitcher must scan the rest of
// the chunk in order (-1: nowhere), with c's tally and end set to what is
// already known.
func (r *run) settle(k int, c *chunkResult, expect int, st *Stats) (int, error) {
	none := expect >= r.limit(k) // no record starts in the chunk; otherwise c.from is a guess to check
	if !none {
		r.admitted.verdict(c.from == expect)
	}
	switch {
	case c.unscanned && !none: // only guessed: the stitcher scans it
		st.InOrder++
		c.t = Tally{Resume: -1}
		return expect, nil
	case c.from == expect && !c.unscanned:
		for j, sink := range r.sinks {
			if err := sink.AddGroup(c.groups[j]); err != nil {
				return -1, err
			}
		}
		if c.full { // rows too short for the chunk's share of memory
			st.Full++
			return c.stop, nil
		}
		return -1, nil
	case none:
		st.Skipped++
		c.stop, c.t = expect, Tally{Resume: -1}
		return -1, nil
	default: // a wrong guess: the whole chunk again, from where it really starts
		st.Repairs++
		c.t = Tally{Resume: -1}
		return expect, nil
	}
}
