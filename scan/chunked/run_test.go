package chunked

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/sorter"
)

// TestRunEqualsSequential scans random garbage in chunks of 1 to 40 bytes,
// where guesses are often wrong, with every kind of tuning: the records and
// the counts must be the sequential scan's, and the repairs, full chunks and
// chunks left to the stitcher must add up to some of each, or a path went
// untested.
func TestRunEqualsSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 31))
	tunings := []struct {
		name string
		tu   Tuning
	}{
		{"default pause", Tuning{}},
		{"pause at the first wrong guess", Tuning{PauseAt: 1}},
		{"never pause", Tuning{NeverPause: true}},
		{"one record a chunk", Tuning{ChunkRecords: 1}},
		{"three records a chunk, never pause", Tuning{ChunkRecords: 3, NeverPause: true}},
	}
	var sum Stats
	for i := range 200 {
		data := garbage(r, 50, 400)
		seq := &Scan{Data: data, Delim: ',', KeyCol: 1, Plan: Plan{Threads: 1}}
		srt := newSorter(t)
		want, err := seq.Run(context.Background(), 0, srt)
		if err != nil {
			t.Fatal(err)
		}
		wantRecs := sorted(t, srt)
		c := tunings[i%len(tunings)]
		c.tu.ChunkBytes = 1 + r.IntN(40)
		s := &Scan{Data: data, Delim: ',', KeyCol: 1, Plan: NewPlan(2+i%3, 1<<20, int64(len(data)), c.tu)}
		srt = newSorter(t)
		got, err := s.Run(context.Background(), 0, srt)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tally != want.Tally || !slices.Equal(sorted(t, srt), wantRecs) {
			t.Fatalf("input %d (%q), %s, chunks of %d: tally %+v, want the sequential %+v, or the records differ",
				i, data, c.name, c.tu.ChunkBytes, got.Tally, want.Tally)
		}
		sum.Repairs += got.Repairs
		sum.Full += got.Full
		sum.InOrder += got.InOrder
		sum.Skipped += got.Skipped
	}
	if sum.Repairs == 0 || sum.Full == 0 || sum.InOrder == 0 {
		t.Fatalf("%+v in all: want repairs, full chunks and chunks left to the stitcher", sum)
	}
}

// TestRunScansCounted: the stitcher counts each of its scans in order
// (repairs, the rest of full chunks, chunks left to it) among the scans
// running, which hold the workers back (see admission), and every scan
// counted ends: on random garbage at small chunk sizes, with every kind of
// chunk.
func TestRunScansCounted(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 34))
	var sum Stats
	for i := range 60 {
		data := garbage(r, 200, 300)
		tu := Tuning{ChunkBytes: 7, ChunkRecords: []int{0, 2}[i%2], PauseAt: 1, NeverPause: i/2%2 == 0}
		s := &Scan{Data: data, Delim: ',', KeyCol: 1, Plan: NewPlan(2, 1<<20, 0, tu)}
		run, err := s.newRun(0, []Sink{newSorter(t)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := run.scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		a := run.admitted
		if inOrder := res.Repairs + res.Full + res.InOrder; a.begun != inOrder {
			t.Fatalf("input %d: the stitcher counted %d scans of its own; it made %d (%+v)", i, a.begun, inOrder, res.Stats)
		}
		if n := a.scans.Load(); n != 0 {
			t.Fatalf("input %d: %d scans still counted as running after the scan", i, n)
		}
		sum.Repairs += res.Repairs
		sum.Full += res.Full
		sum.InOrder += res.InOrder
	}
	if sum.Repairs == 0 || sum.Full == 0 || sum.InOrder == 0 {
		t.Fatalf("%+v in all: want some of each", sum)
	}
}

// TestRunCancelled: a cancelled scan stops with the context's error, in
// parallel and in sequence.
func TestRunCancelled(t *testing.T) {
	var b bytes.Buffer
	for b.Len() < 1<<20 {
		fmt.Fprintf(&b, "%d,k\n", b.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, threads := range []int{1, 2} {
		s := &Scan{Data: b.Bytes(), Delim: ',', Plan: NewPlan(threads, 1<<20, int64(b.Len()), Tuning{ChunkBytes: 4096})}
		if _, err := s.Run(ctx, 0, newSorter(t)); !errors.Is(err, context.Canceled) {
			t.Fatalf("%d threads: %v, want context.Canceled", threads, err)
		}
	}
}

// TestScanChunkTruncated: a CSV cut short after it was mapped makes a
// worker's guess, and its scan, fail with mapping.ErrFault, never kill the
// process with SIGBUS: given as Data and Map, or as a Mapped input.
func TestScanChunkTruncated(t *testing.T) {
	var b bytes.Buffer
	for b.Len() < 256<<10 {
		fmt.Fprintf(&b, "%d,k\n", b.Len())
	}
	for _, asInput := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := mapping.File(f, int64(b.Len()), mapping.Sequential)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		s := &Scan{Data: m.Bytes(), Map: m, Delim: ',', Plan: Plan{Threads: 2, ChunkBytes: 20 << 10, ChunkRecords: 100}}
		if asInput {
			s.Data, s.Map, s.Input = nil, nil, &Mapped{Data: m.Bytes(), Map: m}
		}
		run, err := s.newRun(40<<10, []Sink{nil}) // chunk 3 is [100 KiB, 120 KiB); newRun reads the data's start
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
		for _, fromGuess := range []bool{false, true} {
			c := run.scanChunk(3, [][]sorter.Record{nil}, fromGuess)
			if !errors.Is(c.err, mapping.ErrFault) {
				t.Fatalf("as an input %v, scanning from the guess %v: %v; want mapping.ErrFault", asInput, fromGuess, c.err)
			}
		}
	}
}

// TestScanChunkHoldsAtMost: a chunk's records never take more room than
// ChunkRecords, however its buffer grows (append's growth rounds up past
// it), and a chunk stopped there ends at a record's end, from which a scan
// finds the rest: together the records of a whole scan, in order.
func TestScanChunkHoldsAtMost(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&b, "%d,k\n", i%10)
	}
	s := &Scan{Data: b.Bytes(), Delim: ','}
	var all []sorter.Record
	if _, _, err := s.scanRange(0, math.MaxInt, [][]sorter.Record{nil}, []adder{collect(&all, math.MaxInt)}); err != nil {
		t.Fatal(err)
	}
	for _, most := range []int{1, 7, 1000, 12345, 49999, 50000, 50001} {
		s.Plan = Plan{Threads: 2, ChunkBytes: b.Len() + 1, ChunkRecords: most} // one chunk
		bufs := [][]sorter.Record{make([]sorter.Record, 0, 5)}
		run, err := s.newRun(0, []Sink{nil})
		if err != nil {
			t.Fatal(err)
		}
		c := run.scanChunk(0, bufs, true)
		recs := bufs[0]
		if c.err != nil {
			t.Fatal(c.err)
		}
		if len(recs) > most || cap(recs) > most {
			t.Fatalf("most %d: %d records in a buffer of %d", most, len(recs), cap(recs))
		}
		// A chunk that reaches most stops, even at its last record.
		if full := most <= len(all); c.full != full {
			t.Fatalf("most %d: full = %v, want %v", most, c.full, full)
		}
		got := slices.Clone(recs)
		if c.full {
			var rest []sorter.Record
			if _, _, err := s.scanRange(c.stop, math.MaxInt, [][]sorter.Record{nil}, []adder{collect(&rest, math.MaxInt)}); err != nil {
				t.Fatal(err)
			}
			got = append(got, rest...)
		}
		if !slices.Equal(got, all) {
			t.Fatalf("most %d: %d records in the chunk and its rest, want the %d of a whole scan", most, len(got), len(all))
		}
	}
}
