package index

// # Parallel scan: guessed chunk boundaries with repair
//
// Where a record starts cannot be told from a piece of a CSV alone: a newline
// inside quotes does not end a record. So the data after the header is cut
// into chunks of a few MiB, and every chunk but the first guesses where its
// first record starts, from the bytes after its boundary (see guessStart).
// Workers scan the chunks from their guesses at the same time, each taking
// the records that start before the next boundary.
//
// The results are stitched in order. Chunk k-1, itself exact, stopped where
// its last record ended: that is where chunk k really starts. If chunk k's
// guess was that position, its result is exactly what a sequential scan
// finds, since the scan from a record start is deterministic; it is kept.
// Otherwise the chunk is scanned again from the real start ("repaired"), on
// the stitching goroutine. Only speed depends on the guesses, never the
// result: the index is byte for byte the sequential one. Workers scan from
// guesses only while it may pay (see guesser): no more scans run at once than
// there are threads, the stitcher's included, and a run of wrong guesses
// pauses the scanning from guesses; a worker then only guesses where its
// chunk starts, and the stitcher scans the chunk in order, as a sequential
// scan does, checking the guess all the same. So a hostile file whose every
// newline is inside quotes costs about the sequential scan.
//
// Memory: at most window chunks are in flight (scanned, not yet stitched),
// each holding at most a set number of records, twice (as scanned and as
// grouped): that is the share of the budget set aside for them, a
// sixteenth. A chunk is sized so that rows of 8 bytes or more never reach
// its number; a chunk of shorter rows stops there, and the stitcher scans
// the rest of it itself, like a repair (for 2-byte rows, three quarters of
// the file is then scanned in order). So the share holds for any file
// without setting aside room for the worst case (16 bytes of records per
// 2-byte row), which took a quarter of the budget: 100M rows of 47 bytes
// spilled 60M records at the default limit instead of 50M. Under a budget
// of a few MiB per thread, the chunks' floor of 64 KiB (8,193 records)
// takes more than the share. The stitching, the sorter's Add, and the index
// writing are sequential; the stitching copies no records (the sorter takes
// the workers' groups over).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/sorter"
)

const (
	maxChunk        = 16 << 20 // CSV bytes per chunk, at most
	minChunk        = 64 << 10 // and at least, unless a test says otherwise
	rowBytes        = 8        // rows this long or longer never fill a chunk's share of records
	chunksPerWorker = 2        // chunks in flight per worker: one being scanned, one waiting to be stitched

	recordMem = int64(unsafe.Sizeof(sorter.Record{})) // memory of one index record in a chunk
)

// errChunkFull stops a chunk's scan when it holds as many records as it may:
// the stitcher scans the rest.
var errChunkFull = errors.New("chunk full")

// parallel says how to split a scan.
type parallel struct {
	threads    int      // workers; 1 scans sequentially
	chunk      int      // CSV bytes per chunk
	most       int      // records a chunk may hold; a worker stops there and the stitcher scans the rest
	inUse      int64    // memory the chunks in flight may take, taken from the budget
	pauseAfter int      // wrong guesses among the last 16 that pause the scanning from guesses (see guesser); 0: never
	guesses    *guesser // of the last parallel scan, for tests
	stats      scanStats
}

// newParallel plans a scan of size CSV bytes with threads workers (0: one
// per core) within a memory budget; chunk and most, when positive, override
// the chunk size and the records a chunk may hold (tests). It never plans
// more workers than maxPerCore per core, than there are chunks, or than the
// budget's share for chunks holds at their smallest: a request beyond any
// of those gets fewer workers, and the same index.
func newParallel(threads int, budget, size int64, chunk, most int) *parallel {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	threads = min(threads, maxPerCore*runtime.NumCPU())
	if chunk <= 0 && most <= 0 {
		threads = min(threads, max(1, int(budget/16/floorPerWorker)))
	}
	for {
		p := planChunks(threads, budget, chunk, most)
		if p.threads == 1 || size <= 0 {
			return p
		}
		chunks := (size + int64(p.chunk) - 1) / int64(p.chunk)
		if chunks >= int64(threads) {
			return p
		}
		threads = max(1, int(chunks)) // fewer workers make bigger chunks: plan again
	}
}

const (
	maxPerCore = 4 // workers per core, at most
	// floorPerWorker is the memory the chunks of one worker in flight take
	// at their smallest (see planChunks).
	floorPerWorker = (chunksPerWorker + 1) * 33 * recordMem * (minChunk/rowBytes + 1) / 16
)

// planChunks sizes the chunks of a scan by threads workers within budget.
func planChunks(threads int, budget int64, chunk, most int) *parallel {
	p := &parallel{threads: threads, pauseAfter: pauseAfter}
	if threads == 1 {
		return p
	}
	// Each chunk in flight holds its records twice: as scanned, and as
	// grouped with a sixteenth of room (see sorter.Distributor.Group). Rows
	// of rowBytes or more never fill a chunk: fewer than most of them start
	// in it.
	window := int64(threads*chunksPerWorker + threads)
	p.inUse = budget / 16
	p.most = int(max(p.inUse*16/(window*33*recordMem), minChunk/rowBytes+1))
	p.chunk = int(min(int64(p.most-1)*rowBytes, maxChunk))
	if chunk > 0 {
		p.chunk = chunk
	}
	if most > 0 {
		p.most = most
	}
	return p
}

// buildStats reports how the scan went.
func (p *parallel) buildStats() *BuildStats {
	return &BuildStats{Threads: p.threads, Chunks: p.stats.chunks, Repairs: p.stats.repairs, Skipped: p.stats.skipped, Full: p.stats.full, InOrder: p.stats.inOrder}
}

// tally is what a scan of records counts.
type tally struct {
	rows, short, blanks uint64
	resume              int64 // start of an unterminated last record, or -1
}

func (t *tally) add(u tally) {
	t.rows += u.rows
	t.short += u.short
	t.blanks += u.blanks
	if u.resume >= 0 {
		t.resume = u.resume
	}
}

// scanStats says how a parallel scan went.
type scanStats struct {
	chunks, repairs, skipped int
	full                     int // chunks whose rows were too short for their share of memory, finished by the stitcher
	inOrder                  int // chunks no worker scanned (see guesser), scanned by the stitcher
}

// scanRange scans the records of data that start at or after from and before
// limit, appending their index records to buf and calling add whenever it is
// full, and once at the end if it holds any; add returns the buffer to go on
// with (see [toSorter] and [collect]). scanRange returns where it stopped:
// the end of the last record read. If add returns errChunkFull before the
// range's end, scanRange stops there and returns it, with where it stopped
// and what it counted: a scan from that point finds the rest.
func scanRange(data []byte, from, limit int, sp spec, buf []sorter.Record, add func([]sorter.Record) ([]sorter.Record, error)) (int, tally, error) {
	s, err := scan.New(data, sp.delim, sp.keyCol)
	if err != nil {
		return 0, tally{}, err
	}
	s.Reset(from)
	s.SetLimit(limit)
	t := tally{resume: -1}
	batch := buf[:0]
	var long *xxh3.Hasher // for keys the scanner calls long
	custom := testHash    // nil but in tests
	for s.Next() {
		t.rows++
		if !s.Terminated() {
			t.resume = int64(s.Start())
		}
		var h uint64
		if s.LongKey() && custom == nil {
			h = hashLong(s, &long) // only xxh3 can take a key in pieces
		} else if key, ok := s.Key(); ok {
			if custom != nil {
				h = custom(key)
			} else {
				h = xxh3.Hash(key) // a direct call: this loop runs once per row
			}
		} else {
			t.short++
			continue
		}
		batch = append(batch, sorter.Record{Hash: h, Offset: uint64(s.Start())})
		if len(batch) == cap(batch) {
			if batch, err = add(batch); err == errChunkFull {
				t.blanks = uint64(s.Blanks())
				return s.Pos(), t, err
			} else if err != nil {
				return 0, t, err
			}
		}
	}
	t.blanks = uint64(s.Blanks())
	if len(batch) > 0 {
		// errChunkFull here comes with the range read to its end: success.
		if _, err := add(batch); err != nil && err != errChunkFull {
			return 0, t, err
		}
	}
	return s.Pos(), t, nil
}

// toSorter returns an add for scanRange that hands each batch to srt.Add and
// reuses the batch buffer.
func toSorter(srt *sorter.Sorter) func([]sorter.Record) ([]sorter.Record, error) {
	return func(b []sorter.Record) ([]sorter.Record, error) { return b[:0], srt.Add(b) }
}

// collect returns an add for scanRange that keeps every record in the one
// buffer, growing it when full up to most records, and leaves the records in
// *recs: a chunk's records are gathered where they are scanned, not copied
// from batches. At most records it returns errChunkFull.
func collect(recs *[]sorter.Record, most int) func([]sorter.Record) ([]sorter.Record, error) {
	return func(b []sorter.Record) ([]sorter.Record, error) {
		*recs = b
		if len(b) >= most {
			return b, errChunkFull
		}
		if len(b) == cap(b) {
			// Room for as many again, up to most, and no more: append's
			// growth would round the array up past most.
			grown := make([]sorter.Record, len(b), len(b)+min(len(b), most-len(b)))
			copy(grown, b)
			b = grown
		}
		return b, nil
	}
}

// hashLong hashes the current key, a long one that needs unescaping (over
// 64 KiB), as the scanner streams it: a key field of gigabytes takes no
// memory. The result is xxh3.Hash of the decoded key.
func hashLong(s *scan.Scanner, h **xxh3.Hasher) uint64 {
	if *h == nil {
		*h = xxh3.New()
	}
	(*h).Reset()
	s.WriteKey(*h) // a Hasher's Write never fails
	return (*h).Sum64()
}

// scanRecords scans the records of data from start, with par's workers, and
// adds their index records to srt in file order.
func scanRecords(ctx context.Context, csv *csvFile, start int, sp spec, par *parallel, srt *sorter.Sorter, progress func(done, total int64)) (tally, scanStats, error) {
	if par.threads == 1 || len(csv.data)-start <= par.chunk {
		return scanSequential(ctx, csv, start, sp, srt, progress)
	}
	return scanParallel(ctx, csv, start, sp, par, srt, progress)
}

// scanSequential scans in one goroutine, a piece at a time so that it can
// report progress and notice cancellation.
func scanSequential(ctx context.Context, csv *csvFile, start int, sp spec, srt *sorter.Sorter, progress func(done, total int64)) (tally, scanStats, error) {
	data := csv.data
	total := tally{resume: -1}
	buf := make([]sorter.Record, 0, batchRecords)
	pos := start
	for limit := start + progressEvery; ; limit += progressEvery {
		if err := ctx.Err(); err != nil {
			return total, scanStats{}, err
		}
		if limit >= len(data) {
			limit = math.MaxInt
		}
		csv.m.Populate(pos, limit) // one system call, not a fault every few pages
		stop, t, err := scanRange(data, pos, limit, sp, buf, toSorter(srt))
		if err != nil {
			return total, scanStats{}, err
		}
		total.add(t)
		pos = stop
		srt.Progress(int64(pos-start), int64(len(data)-start))
		if limit == math.MaxInt {
			return total, scanStats{chunks: 1}, nil
		}
		if progress != nil {
			progress(int64(pos), int64(len(data)))
		}
	}
}

// chunkResult is a worker's result for a chunk: where it guessed the chunk
// starts and, if it scanned the chunk from there, its records grouped by
// partition for the sorter; or from -1 when no record starts in the chunk.
type chunkResult struct {
	from, stop int
	full       bool // the scan stopped at the records a chunk may hold (the rest may be empty)
	unscanned  bool // only guessed, not scanned (see guesser)
	group      *sorter.Group
	t          tally
	err        error
}

// scanParallel is the scan described at the top of this file.
func scanParallel(ctx context.Context, csv *csvFile, start int, sp spec, par *parallel, srt *sorter.Sorter, progress func(done, total int64)) (tally, scanStats, error) {
	data := csv.data
	// Chunk k covers the records that start in [bound(k), limitOf(k)).
	// Nothing is kept per chunk: a file of any size scans in fixed memory.
	chunks := 1 + (len(data)-1-start)/par.chunk
	bound := func(k int) int { return start + k*par.chunk }
	limitOf := func(k int) int {
		if k+1 < chunks {
			return bound(k + 1)
		}
		return math.MaxInt
	}
	ctx, cancel := context.WithCancel(ctx)
	tokens := make(chan struct{}, par.threads*chunksPerWorker) // chunks in flight
	// Chunk k's result goes through results[k%len(results)]: a chunk is
	// handed out only with a token, which comes back once the chunk is
	// stitched, so no two chunks in flight share a channel.
	results := make([]chan chunkResult, cap(tokens))
	for i := range results {
		results[i] = make(chan chunkResult, 1)
	}
	jobs := make(chan int)

	// Groups go round between the workers and the stitcher. The sorter
	// takes a large group's buffer over and hands back one it spilled, if
	// any: fresh memory is slow to touch, and a sync.Pool would drop the
	// buffers at each GC.
	groups := make(chan *sorter.Group, cap(tokens)+par.threads)
	var stitched atomic.Int64 // where the next chunk really starts, as far as known
	stitched.Store(int64(start))
	guesses := &guesser{threads: int32(par.threads), after: par.pauseAfter} // whether workers scan from their guesses
	sp.cols = usualFields(data, start, sp.delim)
	par.guesses = guesses
	var wg sync.WaitGroup
	defer func() {
		cancel() // stops the hand-out, which stops the workers
		wg.Wait()
	}()
	go func() { // hand out chunks, no more than the window ahead of the stitching
		defer close(jobs)
		for k := range chunks {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- k:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range par.threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs := make([]sorter.Record, 0, min(batchRecords, par.most)) // grows to the largest chunk's records, up to most
			dist := srt.NewDistributor()
			for k := range jobs {
				if limitOf(k) <= int(stitched.Load()) {
					// A record stitched already runs past this chunk (a
					// field of gigabytes): no record starts in it.
					results[k%len(results)] <- chunkResult{from: -1, t: tally{resume: -1}}
					continue
				}
				var r chunkResult
				fromGuess := guesses.scan(k)
				r, recs = scanChunk(csv, k, start, bound(k), limitOf(k), sp, recs, par.most, fromGuess)
				if r.err == nil && fromGuess {
					select {
					case r.group = <-groups:
					default:
						r.group = new(sorter.Group)
					}
					r.err = dist.Group(r.group, recs)
				}
				if fromGuess {
					guesses.end()
				}
				results[k%len(results)] <- r
			}
		}()
	}

	total, stats := tally{resume: -1}, scanStats{chunks: chunks}
	expect := start // where the next chunk really starts
	buf := make([]sorter.Record, 0, batchRecords)
	for k := range chunks {
		var r chunkResult
		select {
		case r = <-results[k%len(results)]:
		case <-ctx.Done():
			return total, stats, ctx.Err()
		}
		if r.err != nil {
			return total, stats, r.err
		}
		rest := -1                   // where the stitcher scans the rest of the chunk in order, if it must
		none := expect >= limitOf(k) // no record starts in the chunk; otherwise r.from is a guess to check
		if !none {
			guesses.verdict(r.from == expect)
		}
		switch {
		case r.unscanned && !none: // only guessed: the stitcher scans it
			stats.inOrder++
			r.t, rest = tally{resume: -1}, expect
		case r.from == expect && !r.unscanned:
			if err := srt.AddGroup(r.group); err != nil {
				return total, stats, err
			}
			if r.full { // rows too short for the chunk's share of memory
				stats.full++
				rest = r.stop
			}
		case none:
			stats.skipped++
			r.stop, r.t = expect, tally{resume: -1}
		default: // a wrong guess: the whole chunk again, from where it really starts
			stats.repairs++
			r.t, rest = tally{resume: -1}, expect
		}
		if rest >= 0 {
			guesses.begin()
			stop, t, err := scanRange(data, rest, limitOf(k), sp, buf, toSorter(srt))
			guesses.end()
			if err != nil {
				return total, stats, err
			}
			r.t.add(t)
			r.stop = stop
		}
		total.add(r.t)
		expect = r.stop
		stitched.Store(int64(expect))
		srt.Progress(int64(expect-start), int64(len(data)-start))
		if r.group != nil {
			select {
			case groups <- r.group:
			default:
			}
		}
		<-tokens
		if progress != nil {
			progress(int64(min(expect, len(data))), int64(len(data)))
		}
		if err := ctx.Err(); err != nil {
			return total, stats, err
		}
	}
	return total, stats, nil
}

// scanChunk scans chunk k, the records that start in [bound, limit), from
// its guessed start (chunk 0 from start, where the data's records begin),
// collecting up to most records in recs, whose room is reused; it returns
// the records. Unless fromGuess, it only guesses the start (see guesser).
func scanChunk(csv *csvFile, k, start, bound, limit int, sp spec, recs []sorter.Record, most int, fromGuess bool) (chunkResult, []sorter.Record) {
	r := chunkResult{from: start, unscanned: !fromGuess, t: tally{resume: -1}}
	r.err = mapping.Guard(func() error {
		if k > 0 {
			r.from = guessStart(csv.data, bound, limit, sp.delim, sp.cols)
		}
		if !fromGuess {
			return nil
		}
		var err error
		recs = recs[:0:min(cap(recs), most)]
		csv.m.Populate(r.from, limit)
		r.stop, r.t, err = scanRange(csv.data, r.from, limit, sp, recs, collect(&recs, most))
		if err == errChunkFull {
			r.full, err = true, nil
		}
		return err
	}, csv.m)
	if r.err == mapping.ErrFault {
		r.err = fmt.Errorf("%s: %w", csv.path, ErrChanged)
	}
	return r, recs
}
