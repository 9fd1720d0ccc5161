package sorter

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// withAscendingOffsets returns recs with offsets 0, 1, 2, ...: the order the build adds.
func withAscendingOffsets(recs []Record) []Record {
	for i := range recs {
		recs[i].Offset = uint64(i)
	}
	return recs
}

// TestSorterLimits sorts the same inputs under memory limits from one record up to all in
// memory: the output must be the same sorted sequence every time, spills and sub-sorts must
// happen where the limit is small, and no spill file may outlive Close.
func TestSorterLimits(t *testing.T) {
	rng := newRand(11)
	inputs := []struct {
		name string
		recs []Record
	}{
		{"Uniform", genUniform(rng, 6_000)},
		{"HeavyKeys", genHeavy(rng, 8_000, 20, 300)},
		{"OneGiantKey", genBits(rng, 6_000, 42, 0)},
		{"GiantKeyAmongOthers", shuffled(rng, append(append(genBits(rng, 5_000, 1<<63, 0), genBits(rng, 1_000, 1<<63, 0xffff)...), genUniform(rng, 1_000)...))},
		{"InterleavedGiantKeys", genInterleaved(6_000, 0x7777, 0x7778)},
		{"SharedPrefix", genBits(rng, 6_000, rng.Uint64(), 0xffff)},
	}
	limits := []int64{1, recordBytes, 2 * recordBytes, 3 * recordBytes, 1 << 10, 64 << 10, 1 << 20, 0}
	for _, in := range inputs {
		recs := withAscendingOffsets(in.recs)
		want := reference(recs)
		for i, limit := range limits {
			threads := 1 + i%3
			t.Run(fmt.Sprintf("%s/limit=%d/threads=%d", in.name, limit, threads), func(t *testing.T) {
				dir := t.TempDir()
				s := New(Options{MemLimit: limit, TmpDir: dir, TmpName: "x", Threads: threads})
				addInBatches(t, s, recs, []int{1, 999, 4096})
				checkSorted(t, finishAll(t, s), want)
				st := s.Stats()
				if limit > 0 && limit <= 1<<10 && st.SpilledRecords == 0 {
					t.Errorf("limit %d: nothing was spilled (%+v)", limit, st)
				}
				if limit == 0 && st.SpilledRecords != 0 {
					t.Errorf("default limit: %d records spilled", st.SpilledRecords)
				}
				if (in.name == "SharedPrefix" || in.name == "GiantKeyAmongOthers") && limit > 0 && limit <= 1<<10 && st.SubSorts == 0 {
					t.Errorf("limit %d: a partition too large for memory was not split again (%+v)", limit, st)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Fatalf("%d spill files left after Close", len(entries))
				}
			})
		}
	}
}

// TestSorterPeakMemory checks the accounting: the record memory a Sorter holds stays within
// its limit plus one chunk, and partitions too large for the budget are split again.
func TestSorterPeakMemory(t *testing.T) {
	rng := newRand(12)
	recs := withAscendingOffsets(genUniform(rng, 400_000)) // 6.4 MB of records
	for _, limit := range []int64{256 << 10, 1 << 20, 4 << 20} {
		s := New(Options{MemLimit: limit, TmpDir: t.TempDir()})
		addInBatches(t, s, recs, []int{1 << 14})
		checkSorted(t, finishAll(t, s), reference(recs))
		st := s.Stats()
		s.Close()
		if st.PeakBytes > limit {
			t.Errorf("limit %d: peak record memory %d", limit, st.PeakBytes)
		}
		if mustSpill := int64(len(recs)) - limit/recordBytes; st.SpilledRecords < mustSpill {
			t.Errorf("limit %d: only %d of %d records spilled, want at least %d", limit, st.SpilledRecords, len(recs), mustSpill)
		}
		t.Logf("limit %d: %+v", limit, st)
	}
}

// TestSorterSpillErrors: a spill file that cannot be created or written is an error naming
// the directory, and Close still removes what was made.
func TestSorterSpillErrors(t *testing.T) {
	recs := withAscendingOffsets(genUniform(newRand(13), 5000))
	missing := t.TempDir() + "/no/such/dir"
	s := New(Options{MemLimit: recordBytes, TmpDir: missing})
	err := s.Add(recs)
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Add with an unusable spill directory = %v, want an error naming %s", err, missing)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// An emit error after spilling: Finish returns it and Close removes the file.
	dir := t.TempDir()
	s = New(Options{MemLimit: 1 << 10, TmpDir: dir})
	addInBatches(t, s, recs, []int{100})
	boom := errors.New("boom")
	if err := s.Finish(func([]Record) error { return boom }); err != boom {
		t.Fatalf("Finish = %v, want the emit error", err)
	}
	// The spill file has no name (O_TMPFILE): nothing to find in dir even
	// before Close, and nothing a SIGKILL could leave behind.
	if st := s.Stats(); st.SpillFiles == 0 {
		t.Fatalf("nothing spilled: %+v", st)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("before Close: %d files in the spill directory, want none (spill files are unnamed)", len(entries))
	}
	s.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d spill files left after Close", len(entries))
	}
}

// TestBackgroundSpillError: a spill written in the background that fails makes a later
// AddGroup return its error, and Close still removes the file; told the progress or not
// (then AddGroup's own spill collects the failed one to choose how much to write).
func TestBackgroundSpillError(t *testing.T) {
	for _, told := range []bool{false, true} {
		t.Run(fmt.Sprintf("told=%v", told), func(t *testing.T) { testBackgroundSpillError(t, told) })
	}
}

func testBackgroundSpillError(t *testing.T, told bool) {
	const n = 200_000
	recs := withAscendingOffsets(genUniform(newRand(14), n))
	dir := t.TempDir()
	limit := int64(256 << 10) // groups of half the budget
	if told {
		limit = 1 << 20 // the estimate keeps more, and spares make room without a background spill at 256 KiB
	}
	s := New(Options{MemLimit: limit, TmpDir: dir, Threads: 2})
	d := s.NewDistributor()
	var g Group
	add := func(k int) error {
		if err := d.Group(&g, recs[:k]); err != nil {
			t.Fatal(err)
		}
		recs = recs[k:]
		err := s.AddGroup(&g)
		if told {
			s.InputDone(int64(n-len(recs)), n)
		}
		return err
	}
	for s.Stats().Background == 0 {
		if len(recs) < 2*smallGroup {
			t.Fatalf("no spill in the background (stats %+v)", s.Stats())
		}
		if err := add(2 * smallGroup); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.collectSpill(true); err != nil {
		t.Fatal(err)
	}
	// From now on the last spill file's writes fail: it is open read-only.
	if n := len(s.spill.lanes); n != 2 {
		t.Fatalf("%d spill files with 2 threads, want 2", n)
	}
	makeReadOnly(t, s.spill.lanes[1])
	var err error
	for err == nil && len(recs) >= 2*smallGroup {
		err = add(2 * smallGroup)
	}
	// The next spill cannot start before the failed one is collected, by AddGroup.
	if want := "spill records to " + dir; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("after a failed background spill: %v, want the write's error (%q)", err, want)
	}
	s.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d spill files left after Close", len(entries))
	}
}

// makeReadOnly reopens a spill file read-only, through its descriptor (it has no
// name): its writes fail from then on.
func makeReadOnly(t *testing.T, f *spillFile) {
	t.Helper()
	ro, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", f.f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	f.f.Close()
	f.f = ro
}

// TestWriteGenerationStops: a spill told to stop writes nothing more, so that Close does
// not wait for gigabytes it is about to delete. A spill that goes on writes each partition
// to its lane, every lane its own range.
func TestWriteGenerationStops(t *testing.T) {
	for _, lanes := range []int{1, 2, 3, maxLanes} {
		f, err := createSpills(Options{TmpDir: t.TempDir()}, lanes, 4<<10)
		if err != nil {
			t.Fatal(err)
		}
		defer f.remove()
		s := New(Options{})
		a, err := s.newArena(1000)
		if err != nil {
			t.Fatal(err)
		}
		distributeInto(a.recs, &a.start, withAscendingOffsets(genUniform(newRand(16), 1000)), new([maxBuckets]int), s.digit)
		size := func() (n int64) {
			for _, l := range f.lanes {
				n += l.size
			}
			return n
		}
		var stop atomic.Bool
		stop.Store(true)
		var g generation
		if err := f.writeGeneration(&g, []*arena{a}, &stop); err != errStopped || size() != 0 {
			t.Fatalf("%d lanes, stopped: err %v, %d bytes written; want errStopped and none", lanes, err, size())
		}
		stop.Store(false)
		if err := f.writeGeneration(&g, []*arena{a}, &stop); err != nil || size() != 1000*recordBytes {
			t.Fatalf("%d lanes, not stopped: err %v, %d bytes written; want %d", lanes, err, size(), 1000*recordBytes)
		}
		// Each lane holds its partitions one after the other, from its start.
		for i, l := range f.lanes {
			at := int64(0)
			for d := f.laneStart(i); d < f.laneStart(i+1); d++ {
				if f.lane(d) != l || g.part[d].off != at {
					t.Fatalf("%d lanes: partition %d at %d of lane %p, want %d of lane %d", lanes, d, g.part[d].off, f.lane(d), at, i)
				}
				at += g.part[d].n * recordBytes
			}
			if at != l.size {
				t.Fatalf("%d lanes: lane %d holds %d bytes, its partitions %d", lanes, i, l.size, at)
			}
		}
		if f.laneStart(0) != 0 || f.laneStart(lanes) != partitions {
			t.Fatalf("%d lanes: from partition %d to %d", lanes, f.laneStart(0), f.laneStart(lanes))
		}
	}
}

// TestSpillLaneFails: a lane that fails to write makes the generation fail with its error,
// not another lane's errStopped, and the files are removed once however often remove is
// called.
func TestSpillLaneFails(t *testing.T) {
	dir := t.TempDir()
	sp, err := createSpills(Options{TmpDir: dir}, 3, 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	a, err := s.newArena(5000)
	if err != nil {
		t.Fatal(err)
	}
	distributeInto(a.recs, &a.start, withAscendingOffsets(genUniform(newRand(17), 5000)), new([maxBuckets]int), s.digit)
	makeReadOnly(t, sp.lanes[2])
	var g generation
	err = sp.writeGeneration(&g, []*arena{a}, nil)
	if err == nil || err == errStopped || !strings.Contains(err.Error(), "spill records to "+dir) {
		t.Fatalf("a generation with a read-only lane: %v, want the write's error", err)
	}
	if err := sp.remove(); err != nil {
		t.Fatal(err)
	}
	if err := sp.remove(); err != nil {
		t.Fatalf("remove again: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d spill files left after remove", len(entries))
	}
}

// TestFinishRemovesSpills: a Finish that succeeds starts deleting the spill files itself,
// before Close, which waits for it.
func TestFinishRemovesSpills(t *testing.T) {
	for _, threads := range []int{1, 4} {
		dir := t.TempDir()
		s := New(Options{MemLimit: 64 << 10, TmpDir: dir, Threads: threads})
		recs := withAscendingOffsets(genUniform(newRand(18), 50_000))
		addInBatches(t, s, recs, []int{4096})
		checkSorted(t, finishAll(t, s), reference(recs))
		if st := s.Stats(); st.SpillFiles != min(threads, maxLanes) {
			t.Fatalf("%d threads: %d spill files, want %d", threads, st.SpillFiles, min(threads, maxLanes))
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			entries, _ := os.ReadDir(dir)
			if len(entries) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d threads: %d spill files still there 10 s after Finish", threads, len(entries))
			}
			time.Sleep(time.Millisecond)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
