package chunked

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// scanned is what a scan found: its result, each sink's records (sorted),
// and its error.
type scanned struct {
	res  Result
	recs [][]sorter.Record
	err  error
}

// scanOf runs s from from into a sorter per key.
func scanOf(t testing.TB, s Scan, from int) scanned {
	t.Helper()
	var sinks []Sink
	for range max(1, len(s.Keys)) {
		sinks = append(sinks, newSorter(t))
	}
	res, err := s.RunKeys(context.Background(), from, sinks)
	got := scanned{res: res, err: err}
	if err == nil {
		for _, sink := range sinks {
			got.recs = append(got.recs, sorted(t, sink.(*sorter.Sorter)))
		}
	}
	return got
}

// inOrder scans s's records from from with scanRange, keeping each key's
// records in the order found.
func inOrder(s *Scan, from int) ([][]sorter.Record, int, Tally, error) {
	n := max(1, len(s.Keys))
	recs := make([][]sorter.Record, n)
	bufs, adds := make([][]sorter.Record, n), make([]adder, n)
	for j := range n {
		bufs[j] = make([]sorter.Record, 0, 3)
		adds[j] = func(b []sorter.Record) ([]sorter.Record, error) { recs[j] = append(recs[j], b...); return b[:0], nil }
	}
	stop, tally, err := s.scanRange(from, math.MaxInt, bufs, adds)
	return recs, stop, tally, err
}

// sameStats reports whether two scans by plan have the same stats: all of
// them for a sequential scan; the chunks for a parallel one, whose other
// stats depend on the workers' timing (see admission: a chunk no worker
// scanned is counted InOrder, one whose scan another's record overran is
// Skipped, one a worker scanned from a right guess neither).
func sameStats(a, b Stats, plan Plan) bool {
	if plan.Threads <= 1 {
		return a == b
	}
	return a.Chunks == b.Chunks
}

// sameScans fails t unless s over data in memory, over a ReaderInput of
// windows of window bytes and over a blockInput of blocks of window bytes
// find the same: the records of each key, in order for one scan of the
// whole range and as a sink gets them from s.Plan's scan, the tally and
// the stats (see sameStats); and no window is left unreleased.
func sameScans(t testing.TB, s Scan, data []byte, from, window int) {
	t.Helper()
	whole := s
	whole.Data, whole.Input = data, nil
	wantOrder, wantStop, wantTally, err := inOrder(&whole, from)
	if err != nil {
		t.Fatalf("%q: the scan of the whole slice failed: %v", data, err)
	}
	want := scanOf(t, whole, from)
	blocks := &blockInput{data: data, block: window}
	for _, in := range []Input{NewReaderAt(bytes.NewReader(data), int64(len(data))), blocks} {
		w := s
		w.Data, w.Input, w.Plan.WindowBytes = nil, in, window
		order, stop, tally, err := inOrder(&w, from)
		if err != nil || stop != wantStop || tally != wantTally || !slices.EqualFunc(order, wantOrder, slices.Equal) {
			t.Fatalf("%q from %d, windows of %d (%T): scanRange stopped at %d with %+v, %v, records %v; the whole slice's: %d, %+v, %v",
				data, from, window, in, stop, tally, err, order, wantStop, wantTally, wantOrder)
		}
		got := scanOf(t, w, from)
		if got.err != nil || got.res.Tally != want.res.Tally || !sameStats(got.res.Stats, want.res.Stats, s.Plan) ||
			!slices.EqualFunc(got.recs, want.recs, slices.Equal) {
			t.Fatalf("%q from %d, windows of %d (%T), plan %+v: %+v, %v; the whole slice's: %+v, %v, or the records differ",
				data, from, window, in, s.Plan, got.res, got.err, want.res, want.err)
		}
	}
	if n := blocks.held.Load(); n != 0 {
		t.Fatalf("%q: %d windows not released", data, n)
	}
	// A Streamed input, read front to back in one goroutine, its size
	// known once a read reached its end: the records and the tally are
	// the whole slice's too.
	end := &endSeen{r: bytes.NewReader(data), n: int64(len(data))}
	w := s
	w.Data, w.Input, w.Plan.WindowBytes = nil, NewStreamReaderAt(end, end.known), window
	got := scanOf(t, w, from)
	if got.err != nil || got.res.Tally != want.res.Tally || !slices.EqualFunc(got.recs, want.recs, slices.Equal) {
		t.Fatalf("%q from %d, windows of %d, streamed: %+v, %v; the whole slice's: %+v, %v, or the records differ",
			data, from, window, got.res, got.err, want.res, want.err)
	}
}

// endSeen reads data as a decoder of a stream does: its size is known once
// a read reached its end.
type endSeen struct {
	r    *bytes.Reader
	n    int64
	seen atomic.Bool
}

func (e *endSeen) ReadAt(p []byte, off int64) (int, error) {
	k, err := e.r.ReadAt(p, off)
	if off+int64(k) >= e.n {
		e.seen.Store(true)
	}
	return k, err
}

func (e *endSeen) known() (int64, bool) { return e.n, e.seen.Load() }

// keyKinds are the keys the differential tests scan for: a column, a
// composite key, several keys at once (a column and a composite key), and a
// column hashed by a Hash of the scan's.
var keyKinds = []Scan{
	{KeyCol: 1},
	{KeyCols: []int{2, 0}},
	{Keys: [][]int{{1}, {0, 2}}},
	{KeyCol: 0, Hash: func(k []byte) uint64 { return uint64(len(k))<<32 | uint64(bytes.Count(k, []byte{'\n'})) }},
}

// TestWindowedEqualsWhole scans many generated CSVs (see csvLike) and
// random garbage through windows of 1 to 48 bytes, sequentially and in
// chunks of 1 to 60 bytes on 2 to 4 threads, for every kind of key: what
// the scans find must be what the scan of the whole slice finds.
func TestWindowedEqualsWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 61))
	tunings := []Tuning{{}, {PauseAt: 1}, {NeverPause: true}, {ChunkRecords: 1}, {ChunkRecords: 3, NeverPause: true}}
	for i := range 400 {
		delim := []byte(",;\t")[i%3]
		data := csvLike(r, 40, delim)
		if i%4 == 3 {
			data, delim = garbage(r, 20, 300), ','
		}
		s := keyKinds[i%len(keyKinds)]
		s.Delim, s.Plan = delim, Plan{Threads: 1}
		if i%2 == 1 {
			tu := tunings[i/2%len(tunings)]
			tu.ChunkBytes = 1 + r.IntN(60)
			s.Plan = NewPlan(2+i%3, 1<<20, int64(len(data)), tu)
		}
		from := 0
		if i%5 == 0 {
			from = bytes.IndexByte(data, '\n') + 1 // after a header
		}
		sameScans(t, s, data, from, 1+r.IntN(48))
	}
}

// TestWindowedLongRecords: records many times the window, a key longer
// than the 64 KiB past which the scanner streams a key that needs
// unescaping (LongKey and WriteKey), and a field of 3 MiB, read through
// windows of 1 KiB, which grow for them, find what the whole slice's scan
// finds.
func TestWindowedLongRecords(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("id,key,more\r\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%d,k%d,%s\r\n", i, i%7, strings.Repeat("x", i*37))
		if i%50 == 0 {
			fmt.Fprintf(&b, "%d,\"%s\",\"%s\"\n\n", i, strings.Repeat(`ab""c`, 20<<10), strings.Repeat("multi\r\nline", i))
		}
	}
	fmt.Fprintf(&b, "big,\"%s\",1\n", strings.Repeat("y\n", 3<<19))
	b.WriteString("end,\"k\"\"\"")
	data := b.Bytes()
	for _, s := range keyKinds[:3] {
		s.Delim = ','
		sameScans(t, s, data, 0, 1<<10)
		s.Plan = NewPlan(2, 1<<20, int64(len(data)), Tuning{ChunkBytes: 16 << 10})
		sameScans(t, s, data, 0, 1<<10)
	}
}

// FuzzWindowedScan compares the scan of a CSV through small windows, over
// a ReaderInput and a blockInput, with the scan of the whole slice:
// sequentially, and in small chunks on two threads.
func FuzzWindowedScan(f *testing.F) {
	f.Add([]byte("a,b\r\nc,\"d\ne\"\r\n\r\n\nf,g"), uint8(3), uint8(5), uint8(0))
	f.Add([]byte("\xEF\xBB\xBFh1,h2\n1,\"x\"\"y\"\n2,\"open\r\n"), uint8(1), uint8(1), uint8(1))
	f.Add([]byte("k,\"a\r\nb\",c\r\n\r\nk2,\"\"\"\",c2\n"), uint8(7), uint8(2), uint8(2))
	f.Add([]byte("x,yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy,z\n\"q\nq\",r\n\r"), uint8(4), uint8(9), uint8(3))
	f.Add(csvLike(rand.New(rand.NewPCG(1, 2)), 30, ','), uint8(16), uint8(40), uint8(6))
	f.Fuzz(func(t *testing.T, data []byte, window, chunk, kind uint8) {
		if len(data) > 4096 {
			return
		}
		s := keyKinds[int(kind)%len(keyKinds)]
		s.Delim, s.Plan = ',', Plan{Threads: 1}
		sameScans(t, s, data, 0, 1+int(window)%64)
		s.Plan = NewPlan(2, 1<<20, int64(len(data)), Tuning{ChunkBytes: 1 + int(chunk)%64, ChunkRecords: int(kind) / 4 % 4, NeverPause: kind&128 != 0})
		sameScans(t, s, data, 0, 1+int(window)%64)
	})
}
