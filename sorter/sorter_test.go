package sorter

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// finishAll runs s.Finish and returns everything it emitted, checking the batch sizes.
func finishAll(t *testing.T, s *Sorter) []Record {
	t.Helper()
	var out []Record
	err := s.Finish(func(batch []Record) error {
		if len(batch) == 0 || len(batch) > emitBatchRecords {
			t.Fatalf("emitted a batch of %d records", len(batch))
		}
		out = append(out, batch...)
		return nil
	})
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return out
}

// addInBatches adds recs to s in batches whose sizes come from sizes (cycled), checking Len.
func addInBatches(t *testing.T, s *Sorter, recs []Record, sizes []int) {
	t.Helper()
	added := int64(0)
	for i := 0; len(recs) > 0; i++ {
		k := min(len(recs), sizes[i%len(sizes)])
		if err := s.Add(recs[:k]); err != nil {
			t.Fatalf("Add: %v", err)
		}
		added += int64(k)
		if s.Len() != added {
			t.Fatalf("Len() = %d after adding %d records", s.Len(), added)
		}
		recs = recs[k:]
	}
}

// TestSorter feeds the build's shapes of input, in ascending Offset order, through a Sorter in
// several batchings and checks that Finish emits exactly the sorted sequence.
func TestSorter(t *testing.T) {
	rng := newRand(3)
	inputs := []struct {
		name string
		recs []Record
	}{
		{"Empty", nil},
		{"One", genUniform(rng, 1)},
		{"Uniform/n=5000", genUniform(rng, 5000)},
		{"Uniform/n=300000", genUniform(rng, 300_000)},
		{"Uniform/n=1.1M", genUniform(rng, 1_100_000)},
		{"HeavyKeys", genHeavy(rng, 2_500_000, 1000, 2000)},
		{"InterleavedGiantKeys", genInterleaved(2_000_000, 0x7777, 0x7778)},
		{"AllEqual", genBits(rng, 1_000_000, 99, 0)},
		{"LowBitsOnly", genBits(rng, 300_000, rng.Uint64(), 0xfff)},
		{"TopBitsOnly", genBits(rng, 300_000, rng.Uint64(), 0xfff<<52)},
	}
	batchings := []struct {
		name  string
		sizes []int
	}{
		{"Small", []int{1, 7, 0, 33, 2, 100, 5}},
		{"Big", []int{300_000, 1 << 20, 4095}},
		{"Whole", []int{1 << 30}},
	}
	for _, in := range inputs {
		want := reference(in.recs)
		for _, b := range batchings {
			if b.name == "Small" && len(in.recs) > 300_000 {
				continue // small batches on big inputs only slow the test down
			}
			t.Run(in.name+"/"+b.name, func(t *testing.T) {
				s := New(Options{Threads: len(b.name) % 3})
				defer s.Close()
				addInBatches(t, s, in.recs, b.sizes)
				checkSorted(t, finishAll(t, s), want)
				if s.Len() != 0 {
					t.Errorf("Len() = %d after Finish, want 0", s.Len())
				}
			})
		}
	}
}

// TestSorterOrder checks that Add refuses records out of Offset order.
func TestSorterOrder(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	if err := s.Add([]Record{{1, 5}, {2, 6}}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]Record{{{3, 6}}, {{3, 2}}, {{4, 7}, {4, 7}}} {
		if err := s.Add(bad); !errors.Is(err, ErrOrder) {
			t.Errorf("Add(%v) after offset 6 = %v, want ErrOrder", bad, err)
		}
	}
}

// TestSorterEmitError checks that Finish stops at emit's first error and returns it,
// with its workers gone, however many sort in parallel.
func TestSorterEmitError(t *testing.T) {
	errFull := errors.New("disk full")
	recs := genUniform(newRand(9), 3*emitBatchRecords+5)
	for _, tc := range []struct{ threads, failAt int }{{1, 1}, {1, 2}, {1, 4}, {2, 1}, {2, 3}, {2, 500}, {4, 2}, {4, 700}} {
		t.Run(fmt.Sprintf("threads=%d/failAt=%d", tc.threads, tc.failAt), func(t *testing.T) {
			failAt := tc.failAt
			before := runtime.NumGoroutine()
			s := New(Options{Threads: tc.threads})
			defer s.Close()
			if err := s.Add(recs); err != nil {
				t.Fatal(err)
			}
			calls := 0
			err := s.Finish(func([]Record) error {
				calls++
				if calls == failAt {
					return errFull
				}
				return nil
			})
			if err != errFull {
				t.Fatalf("Finish returned %v, want %v", err, errFull)
			}
			if calls != failAt {
				t.Fatalf("emit called %d times, want %d (no call after the error)", calls, failAt)
			}
			if n := settledGoroutines(before); n > before {
				t.Fatalf("%d goroutines after Finish, %d before", n, before)
			}
		})
	}
}

// settledGoroutines returns the number of goroutines once it is at most want,
// or after a second if it stays above. A worker that has called wg.Done is
// still counted until it has returned, so a count taken right after Wait
// can be one too high for a moment; a real leak stays high.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	return n
}

// TestSorterLifecycle checks Close twice, Close before and after Finish, and use after both.
func TestSorterLifecycle(t *testing.T) {
	recs := genUniform(newRand(1), 10)
	noEmit := func(batch []Record) error {
		t.Fatalf("emit called with %d records", len(batch))
		return nil
	}

	s := New(Options{})
	if err := s.Finish(noEmit); err != nil {
		t.Fatalf("Finish on an empty Sorter: %v", err)
	}
	if err := s.Add(recs); err == nil {
		t.Error("Add after Finish succeeded")
	}
	if err := s.Finish(noEmit); err == nil {
		t.Error("second Finish succeeded")
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Errorf("Close after Finish: %v", err)
		}
	}

	s = New(Options{})
	if err := s.Add(recs); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if s.Len() != 0 {
		t.Errorf("Len() = %d after Close, want 0", s.Len())
	}
	if err := s.Add(recs); err == nil {
		t.Error("Add after Close succeeded")
	}
	if err := s.Finish(noEmit); err == nil {
		t.Error("Finish after Close succeeded")
	}
}

// TestSorterAddCopies checks that Add copies: changing the caller's slice afterwards does not
// change the output.
func TestSorterAddCopies(t *testing.T) {
	recs := genUniform(newRand(2), 1000)
	want := reference(recs)
	s := New(Options{})
	defer s.Close()
	buf := slices.Clone(recs)
	if err := s.Add(buf); err != nil {
		t.Fatal(err)
	}
	clear(buf)
	checkSorted(t, finishAll(t, s), want)
}

// TestSorterGroups adds records grouped by Distributors on several
// goroutines, mixed with Add, at several limits: the output is the same as
// Add alone. Groups of fewer than smallGroup records are staged, larger
// ones get arenas of their own; the pieces' sizes mix both.
func TestSorterGroups(t *testing.T) {
	rng := newRand(14)
	recs := withAscendingOffsets(genHeavy(rng, 200_000, 100, 300))
	want := reference(recs)
	for _, limit := range []int64{64 << 10, 1 << 20, 0} {
		s := New(Options{MemLimit: limit, TmpDir: t.TempDir(), Threads: 2})
		var pieces [][]Record
		sizes := []int{7000, 1000, smallGroup, 300, smallGroup - 1, 5000}
		for rest, i := recs, 0; len(rest) > 0; i++ {
			k := min(len(rest), sizes[i%len(sizes)])
			pieces, rest = append(pieces, rest[:k]), rest[k:]
		}
		groups := make([]*Group, len(pieces))
		handedBack := 0 // large groups given back a spilled buffer
		errs := make(chan error, 4)
		for w := range 4 { // four workers group every fourth piece
			go func() {
				d := s.NewDistributor()
				for i := w; i < len(pieces); i += 4 {
					if i%3 == 0 {
						continue // left for Add
					}
					groups[i] = new(Group)
					if err := d.Group(groups[i], pieces[i]); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range pieces {
			var err error
			if i%3 == 0 {
				err = s.Add(p)
			} else {
				g := groups[i]
				before := unsafe.SliceData(g.recs)
				err = s.AddGroup(g)
				switch {
				case len(pieces[i]) < smallGroup && unsafe.SliceData(g.recs) != before:
					t.Fatalf("piece %d: a small group's buffer was taken over", i)
				case len(pieces[i]) >= smallGroup && unsafe.SliceData(g.recs) == before:
					t.Fatalf("piece %d: a large group kept its buffer", i)
				case len(pieces[i]) >= smallGroup && cap(g.recs) > 0:
					handedBack++
				}
				// What g holds now is g's: staged records were copied, and a
				// buffer handed back was spilled from.
				full := g.recs[:cap(g.recs)]
				for j := range full {
					full[j] = Record{Hash: ^uint64(0), Offset: ^uint64(0)}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if s.Len() != int64(len(recs)) {
			t.Fatalf("Len = %d, want %d", s.Len(), len(recs))
		}
		if spilled := s.Stats().SpilledRecords > 0; spilled != (handedBack > 0) {
			t.Fatalf("limit %d: spilled %v, but %d groups were handed a spilled buffer", limit, spilled, handedBack)
		}
		checkSorted(t, finishAll(t, s), want)
		s.Close()
	}
	s := New(Options{})
	defer s.Close()
	var g Group
	s.NewDistributor().Group(&g, []Record{{1, 10}})
	s.Add([]Record{{2, 20}})
	if err := s.AddGroup(&g); !errors.Is(err, ErrOrder) {
		t.Fatalf("a group before the records added = %v, want ErrOrder", err)
	}
	if err := s.NewDistributor().Group(&g, []Record{{1, 5}, {1, 5}}); !errors.Is(err, ErrOrder) {
		t.Fatalf("a group out of order = %v, want ErrOrder", err)
	}
}

// TestAddGroupReusesSpilledBuffers groups chunks into a few Groups in turn,
// as the parallel scan does, at limits that spill: AddGroup takes each
// group's buffer and hands back buffers of spilled groups, which the next
// grouping overwrites. A buffer handed back while an arena still uses it, or
// handed to two groups, corrupts the output. With two threads the spills
// run in the background: one retired before it is written, or a spilled
// arena left among those in memory, corrupts it too.
func TestAddGroupReusesSpilledBuffers(t *testing.T) {
	rng := newRand(15)
	recs := withAscendingOffsets(genHeavy(rng, 300_000, 50, 200))
	want := reference(recs)
	for _, limit := range []int64{256 << 10, 1 << 20} {
		s := New(Options{MemLimit: limit, TmpDir: t.TempDir(), Threads: 2})
		d := s.NewDistributor()
		pool := []*Group{new(Group), new(Group), new(Group)}
		handedBack := 0
		for i, rest := 0, recs; len(rest) > 0; i++ {
			k := min(len(rest), 2*smallGroup) // every buffer handed back fits the next group
			g := pool[i%len(pool)]
			if err := d.Group(g, rest[:k]); err != nil {
				t.Fatal(err)
			}
			if err := s.AddGroup(g); err != nil {
				t.Fatal(err)
			}
			if cap(g.recs) > 0 {
				handedBack++
			}
			rest = rest[k:]
		}
		if handedBack == 0 {
			t.Fatalf("limit %d: no group was handed a spilled buffer (stats %+v)", limit, s.Stats())
		}
		if st := s.Stats(); st.Background == 0 {
			t.Fatalf("limit %d: no spill was written in the background (stats %+v)", limit, st)
		}
		checkSorted(t, finishAll(t, s), want)
		s.Close()
	}
}
