package sorter

import (
	"fmt"
	"testing"
)

// feed adds recs in pieces of chunk records, as a build does: with one
// thread through Add, with more through groups that go round (AddGroup hands
// each a spilled buffer back). After each piece it calls progress with the
// records added so far, if progress is set.
func feed(t *testing.T, s *Sorter, recs []Record, chunk int, progress func(done int)) {
	t.Helper()
	d := s.NewDistributor()
	groups := []*Group{new(Group), new(Group), new(Group)}
	for i, at := 0, 0; at < len(recs); i++ {
		piece := recs[at:min(len(recs), at+chunk)]
		var err error
		if s.opts.Threads > 1 {
			g := groups[i%len(groups)]
			if err = d.Group(g, piece); err == nil {
				err = s.AddGroup(g)
			}
		} else {
			err = s.Add(piece)
		}
		if err != nil {
			t.Fatal(err)
		}
		at += len(piece)
		if progress != nil {
			progress(at)
		}
	}
}

// TestProgressSpillsLess: told how much input is left, a Sorter over its
// budget spills fewer records than the half-the-budget rule does (with one
// thread, where the spills do not depend on timing), never fewer than must
// go, and sorts the same.
func TestProgressSpillsLess(t *testing.T) {
	rng := newRand(21)
	recs := withAscendingOffsets(genUniform(rng, 400_000)) // 6.4 MB of records
	want := reference(recs)
	for _, limit := range []int64{2 << 20, 4 << 20} {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("limit=%d/threads=%d", limit, threads), func(t *testing.T) {
				spilled := func(told bool) int64 {
					s := New(Options{MemLimit: limit, TmpDir: t.TempDir(), Threads: threads})
					defer s.Close()
					var progress func(int)
					if told {
						progress = func(done int) { s.InputDone(int64(done), int64(len(recs))) }
					}
					feed(t, s, recs, 5_000, progress) // above smallGroup: AddGroup takes the groups over
					checkSorted(t, finishAll(t, s), want)
					return s.Stats().SpilledRecords
				}
				without, with := spilled(false), spilled(true)
				mustSpill := int64(len(recs)) - limit/recordBytes
				t.Logf("spilled %d records told the input done, %d not told; at least %d must go", with, without, mustSpill)
				// With two threads spills run in the background and what a spill
				// finds depends on when the last one ended: the totals vary from
				// run to run, so only the bounds hold.
				if threads == 1 && with >= without {
					t.Errorf("told the input done, the Sorter spilled %d records, not fewer than the %d it spills untold", with, without)
				}
				if with < mustSpill {
					t.Errorf("spilled %d records, fewer than the %d that do not fit", with, mustSpill)
				}
			})
		}
	}
}

// TestProgressWrongEstimates: progress that misleads the Sorter (the input
// said to be over at the start, to be a quarter of what is left, to be a
// hundred times larger, or nonsense) costs no correctness and no memory
// beyond the budget. The first two are estimates the Sorter acts on; the
// others mostly leave it to the half-the-budget rule. With two threads, an
// estimate proven low (the input said to be over, and records still
// coming) stops holding background spills back.
func TestProgressWrongEstimates(t *testing.T) {
	rng := newRand(22)
	recs := withAscendingOffsets(genHeavy(rng, 300_000, 40, 500))
	want := reference(recs)
	n := int64(len(recs))
	lies := []struct {
		name string
		say  func(done int64) (int64, int64)
	}{
		{"AllDone", func(done int64) (int64, int64) { return 1, 1 }},
		{"QuarterOfTheRest", func(done int64) (int64, int64) { return done, done + (n-done)/4 }}, // used, and keeps too much
		{"HundredTimesLarger", func(done int64) (int64, int64) { return done, 100 * n }},
		{"TenTimesSmaller", func(done int64) (int64, int64) { return done, n / 10 }},
		{"Zero", func(done int64) (int64, int64) { return 0, 0 }},
		{"Negative", func(done int64) (int64, int64) { return -done, n }},
	}
	const limit = 1 << 20
	for _, lie := range lies {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/threads=%d", lie.name, threads), func(t *testing.T) {
				s := New(Options{MemLimit: limit, TmpDir: t.TempDir(), Threads: threads})
				defer s.Close()
				feed(t, s, recs, 7_000, func(done int) { s.InputDone(lie.say(int64(done))) })
				checkSorted(t, finishAll(t, s), want)
				st := s.Stats()
				if st.SpilledRecords < n-limit/recordBytes {
					t.Errorf("spilled %d records, fewer than the %d that do not fit", st.SpilledRecords, n-limit/recordBytes)
				}
				if st.PeakBytes > limit+limit/32 {
					t.Errorf("peak record memory %d, budget %d", st.PeakBytes, limit)
				}
				if lie.name == "AllDone" && threads > 1 && st.Background == 0 {
					t.Errorf("no background spill in %d spilled records: the estimate, proven low, still held them back", st.SpilledRecords)
				}
			})
		}
	}
}

// TestProgressRestFits: with two threads, a background spill starts when
// the budget is all but full, unless InputDone says the records still to
// come fit beside those held: a spill then would write what need not go.
// Told a large rest instead, the same records start one.
func TestProgressRestFits(t *testing.T) {
	const limit = 1 << 20
	// 0.88 MB of records in groups of 5,000: with each group's room to grow
	// and its arena's bookkeeping, 0.98 MB by the last group, past the budget
	// less its background room (0.92 MB).
	recs := withAscendingOffsets(genUniform(newRand(23), 55_000))
	for _, c := range []struct {
		name  string
		total func(done int64) int64
		spill bool
	}{
		{"RestFits", func(done int64) int64 { return done + done/100 }, false},
		{"RestDoesNot", func(done int64) int64 { return 2 * done }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(Options{MemLimit: limit, TmpDir: t.TempDir(), Threads: 2})
			defer s.Close()
			feed(t, s, recs, 5_000, func(done int) { s.InputDone(int64(done), c.total(int64(done))) })
			if st := s.Stats(); (st.Background > 0) != c.spill {
				t.Fatalf("%d background spills, %d records spilled; want a spill: %v", st.Background, st.SpilledRecords, c.spill)
			}
			checkSorted(t, finishAll(t, s), reference(recs))
		})
	}
}

// TestSpillTargetFillsTheBudget: with two threads, what a spill leaves in
// memory and the records InputDone says are still to come fill the budget,
// less Finish's buffers: the room a background spill keeps free while it is
// written is not kept to the end.
func TestSpillTargetFillsTheBudget(t *testing.T) {
	const limit = 4 << 20
	recs := withAscendingOffsets(genUniform(newRand(24), 190_000))
	s := New(Options{MemLimit: limit, TmpDir: t.TempDir(), Threads: 2})
	defer s.Close()
	feed(t, s, recs, 5_000, func(done int) { s.InputDone(int64(done), int64(done)*264/190) }) // 74,000 records to come
	if st := s.Stats(); st.Background > 0 || st.SpilledRecords > 0 {
		t.Fatalf("a spill before the test: %+v", st)
	}
	held, target := s.heldBytes(), s.spillTarget()
	if target >= held-limit/16 {
		t.Fatalf("target %d: the arenas (%d) less a sixteenth of the budget, the least a spill writes; the test says nothing", target, held)
	}
	end := (float64(target) + s.restBytes()*17/16) * s.perByte(held)
	if low := float64(limit - s.finishRoom() - limit/32); end < low || end > limit {
		t.Fatalf("what the spill keeps and the rest take %.0f bytes at the end; want %.0f to %d", end, low, limit)
	}
}
