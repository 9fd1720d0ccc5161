package chunked

import (
	"context"
	"fmt"
	"math"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/sorter"
)

// A Scan reads the records of a CSV and makes an index record (the key's
// hash, the record's offset) of every one that has the key field.
type Scan struct {
	// Input, when set, is the CSV (Data and Map are then ignored): a
	// [Mapped] one is read in place like Data, any other a window at a
	// time (see the package documentation).
	Input Input
	// Data is the CSV, when Input is nil.
	Data []byte
	// Map is Data's mapping, if it is one (nil otherwise): the scan
	// populates it ahead of reading, and a worker that faults on it (the
	// file shrank) fails with mapping.ErrFault instead of crashing. Faults
	// on the caller's goroutine are the caller's to guard against.
	Map *mapping.Map
	// Delim is the field delimiter, KeyCol the 0-based key column.
	Delim  byte
	KeyCol int
	// KeyCols, when set, are the columns of a composite key, in its order
	// (KeyCol is then ignored): the key is their encoding (see
	// scan.AppendComposite).
	KeyCols []int
	// Keys, when it holds two keys or more, are the keys of a scan that
	// makes the records of several indexes in one pass: each is the
	// columns of a key, one or those of a composite key, and key j's
	// records go to the j-th sink given to [Scan.RunKeys]. KeyCol and
	// KeyCols are then ignored.
	Keys [][]int
	// Hash is the key hash; nil for XXH3-64 (scan.Scanner streams a long
	// key into it only then).
	Hash func(key []byte) uint64
	// Plan splits the scan between workers.
	Plan Plan
	// Progress, when set, is called now and then with the CSV bytes
	// scanned so far and the CSV's size.
	Progress func(done, total int64)
}

// Tally is what a scan counts.
type Tally struct {
	Rows   uint64               // records read
	Short  [scan.MaxKeys]uint64 // records without the key's fields, per key: no index record
	Blanks uint64               // blank lines skipped
	Resume int64                // start of an unterminated last record, or -1
}

func (t *Tally) add(u Tally) {
	t.Rows += u.Rows
	for j := range t.Short {
		t.Short[j] += u.Short[j]
	}
	t.Blanks += u.Blanks
	if u.Resume >= 0 {
		t.Resume = u.Resume
	}
}

// Stats say how a scan went.
type Stats struct {
	Chunks  int // chunks the data was cut into (1 for a sequential scan)
	Repairs int // chunks scanned again because their guessed start was wrong
	Skipped int // chunks in which no record starts
	Full    int // chunks whose rows were too short for their share of memory, finished by the stitcher
	InOrder int // chunks no worker scanned (see admission), scanned by the stitcher
}

// Result is what a scan found.
type Result struct {
	Tally
	Stats
}

const (
	batchRecords  = 1 << 14  // records handed to the sink at a time
	progressEvery = 64 << 20 // CSV bytes between progress reports and cancellation checks
)

// Run scans the records of the CSV that start at or after from (where a
// record starts: after the header, say) and hands their index records to
// sink in file order: with s.Plan's workers, or sequentially for one thread
// or a file of one chunk. It stops at ctx's cancellation.
func (s *Scan) Run(ctx context.Context, from int, sink Sink) (Result, error) {
	return s.RunKeys(ctx, from, []Sink{sink})
}

// RunKeys is Run for a scan of several keys (see Scan.Keys): key j's
// records go to sinks[j]. With one sink, it is Run.
func (s *Scan) RunKeys(ctx context.Context, from int, sinks []Sink) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if n := max(1, len(s.Keys)); len(sinks) != n {
		return Result{}, fmt.Errorf("chunked: %d sinks for %d keys", len(sinks), n)
	}
	if _, streamed := s.Input.(Streamed); streamed || s.Plan.Threads <= 1 || s.size()-from <= s.Plan.ChunkBytes {
		return s.sequential(ctx, from, sinks)
	}
	r, err := s.newRun(from, sinks)
	if err != nil {
		return Result{}, err
	}
	return r.scan(ctx)
}

// newBuffers returns a batch buffer per sink, of n records each.
func newBuffers(sinks, n int) [][]sorter.Record {
	bufs := make([][]sorter.Record, sinks)
	for j := range bufs {
		bufs[j] = make([]sorter.Record, 0, n)
	}
	return bufs
}

// toSinks returns an adder per sink (see toSink).
func toSinks(sinks []Sink) []adder {
	adds := make([]adder, len(sinks))
	for j, sink := range sinks {
		adds[j] = toSink(sink)
	}
	return adds
}

// inputDone tells every sink how much of the scan is done.
func inputDone(sinks []Sink, done, total int64) {
	for _, sink := range sinks {
		sink.InputDone(done, total)
	}
}

// sequential scans in one goroutine, a piece at a time so that it can
// report progress and notice cancellation.
func (s *Scan) sequential(ctx context.Context, from int, sinks []Sink) (Result, error) {
	res := Result{Tally: Tally{Resume: -1}, Stats: Stats{Chunks: 1}}
	bufs, adds := newBuffers(len(sinks), batchRecords), toSinks(sinks)
	_, m, _ := s.mem()
	pos := from
	for limit := from + progressEvery; ; limit += progressEvery {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		size := s.size() // of a Streamed input, known at its end
		if limit >= size {
			limit = math.MaxInt
		}
		if m != nil {
			m.Populate(pos, limit) // one system call, not a fault every few pages
		}
		stop, t, err := s.scanRange(pos, limit, bufs, adds)
		if err != nil {
			return res, err
		}
		res.add(t)
		pos = stop
		size = s.size()
		inputDone(sinks, int64(pos-from), int64(size-from))
		if limit == math.MaxInt {
			return res, nil
		}
		if s.Progress != nil && size != math.MaxInt { // a Streamed input's size is not known yet
			s.Progress(int64(pos), int64(size))
		}
	}
}

// guard runs fn, turning a fault on the CSV's mapping, if it is one, into
// mapping.ErrFault.
func (s *Scan) guard(fn func() error) error {
	if _, m, _ := s.mem(); m != nil {
		return mapping.Guard(fn, m)
	}
	return fn()
}
