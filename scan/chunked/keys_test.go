package chunked

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// TestRunKeysEqualsEachAlone scans random garbage for two or three keys at
// once (a column, a composite key), sequentially and in chunks of 1 to 40
// bytes with every kind of tuning: each key's records and short rows must
// be those of a sequential scan of that key alone, and the paths of a
// parallel scan must all have been taken.
func TestRunKeysEqualsEachAlone(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 35))
	keySets := [][][]int{
		{{1}, {0}},
		{{0}, {2, 0}},
		{{1}, {1, 3}, {3}},
	}
	tunings := []Tuning{{}, {PauseAt: 1}, {NeverPause: true}, {ChunkRecords: 1}, {ChunkRecords: 3, NeverPause: true}}
	var sum Stats
	for i := range 150 {
		data := garbage(r, 50, 400)
		keys := keySets[i%len(keySets)]
		var alone []Tally
		var wants [][]sorter.Record
		for _, cols := range keys {
			s := &Scan{Data: data, Delim: ',', Plan: Plan{Threads: 1}}
			if len(cols) == 1 {
				s.KeyCol = cols[0]
			} else {
				s.KeyCols = cols
			}
			srt := newSorter(t)
			res, err := s.Run(context.Background(), 0, srt)
			if err != nil {
				t.Fatal(err)
			}
			alone = append(alone, res.Tally)
			wants = append(wants, sorted(t, srt))
		}
		for _, tu := range []Tuning{{}, tunings[i%len(tunings)]} {
			plan := Plan{Threads: 1}
			if tu != (Tuning{}) {
				tu.ChunkBytes = 1 + r.IntN(40)
				plan = NewPlan(2+i%3, 1<<20, int64(len(data)), tu)
			}
			s := &Scan{Data: data, Delim: ',', Keys: keys, Plan: plan}
			var sinks []Sink
			for range keys {
				sinks = append(sinks, newSorter(t))
			}
			got, err := s.RunKeys(context.Background(), 0, sinks)
			if err != nil {
				t.Fatal(err)
			}
			for j := range keys {
				if got.Rows != alone[j].Rows || got.Blanks != alone[j].Blanks || got.Resume != alone[j].Resume || got.Short[j] != alone[j].Short[0] {
					t.Fatalf("input %d (%q), keys %v, plan %+v: tally %+v, want key %d's alone: %+v", i, data, keys, plan, got.Tally, j, alone[j])
				}
				if g := sorted(t, sinks[j].(*sorter.Sorter)); !slices.Equal(g, wants[j]) {
					t.Fatalf("input %d (%q), keys %v, plan %+v: key %d's records %v, want %v", i, data, keys, plan, j, g, wants[j])
				}
			}
			sum.Repairs += got.Repairs
			sum.Full += got.Full
			sum.InOrder += got.InOrder
		}
	}
	if sum.Repairs == 0 || sum.Full == 0 || sum.InOrder == 0 {
		t.Fatalf("%+v in all: want repairs, full chunks and chunks left to the stitcher", sum)
	}
}
