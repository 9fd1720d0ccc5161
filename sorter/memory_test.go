package sorter

import (
	"runtime"
	"testing"
)

// TestSorterLiveMemory holds the Sorter to its budget in live heap, not
// only in its own accounting: 10 times the budget of records, a third of
// them on one key (a partition too large for memory, with other hashes in
// it, so it is sorted again by a sub-Sorter), the rest uniform, with two
// workers. The heap is measured after a collection every few batches, during
// Add and during Finish. Buffers the Sorter no longer counts but still
// reaches (spilled arenas left in a slice's spare capacity, workers' sort
// buffers kept while a sub-Sorter takes the whole budget) make it fail.
func TestSorterLiveMemory(t *testing.T) {
	const (
		limit = 16 << 20
		n     = 10 * limit / recordBytes
		batch = 1 << 12
		slack = 3 << 20 // spill and stream buffers, generations' bookkeeping, the test's batch
	)
	heap := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	base := heap()
	var peak int64
	sample := func(i int) {
		if i%64 == 0 {
			peak = max(peak, heap()-base)
		}
	}

	s := New(Options{MemLimit: limit, TmpDir: t.TempDir(), Threads: 2})
	defer s.Close()
	rng := newRand(11)
	heavy := rng.Uint64()
	buf := make([]Record, batch)
	for off, i := uint64(0), 0; off < n; i++ {
		for j := range buf {
			h := rng.Uint64()
			if off%3 == 0 {
				h = heavy
			}
			buf[j] = Record{Hash: h, Offset: off}
			off++
		}
		if err := s.Add(buf); err != nil {
			t.Fatal(err)
		}
		sample(i)
	}
	var got int64
	var last Record
	i := 0
	err := s.Finish(func(b []Record) error {
		for _, r := range b {
			if got > 0 && (r.Hash < last.Hash || r.Hash == last.Hash && r.Offset <= last.Offset) {
				t.Fatalf("record %d %v after %v", got, r, last)
			}
			last = r
			got++
		}
		sample(i)
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Fatalf("Finish emitted %d records, want %d", got, n)
	}
	if st := s.Stats(); st.SubSorts == 0 || st.SpilledRecords == 0 {
		t.Fatalf("stats %+v: the test meant to spill and to sort a partition again", st)
	}
	t.Logf("live heap at most %.1f MiB over the start, budget %d MiB", float64(peak)/(1<<20), limit>>20)
	if peak > limit+slack {
		t.Fatalf("live heap reached %.1f MiB over the start, budget %d MiB + %d MiB", float64(peak)/(1<<20), limit>>20, slack>>20)
	}
}
