package main

import (
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// storageFloor is what the storage under the CSV allows a cold lookup: the
// median time to read one random page of it through a mapping, and to read
// a batch of random pages asked for at once.
type storageFloor struct {
	ReadMicros  float64 `json:"read_p50_us"`  // one page fault on a dropped page
	Batch       int     `json:"batch"`        // pages asked for together
	BatchMicros float64 `json:"batch_p50_us"` // until the last of them is read
}

// measureStorage reads random pages of the file at path the way a cold
// lookup reads its rows: through a mapping with read-ahead off, the file
// dropped from the page cache just before. It times n single reads (a page
// fault each), then n batches of batch pages, asked for all at once
// (madvise WILLNEED) and then touched. A cold lookup can be no faster than
// its dependent trips to storage, the fence and index pages one after the
// other, then its rows together.
func measureStorage(path string, n, batch int) (storageFloor, error) {
	f, err := os.Open(path)
	if err != nil {
		return storageFloor{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return storageFloor{}, err
	}
	const page = 4096
	pages := st.Size() / page
	if pages < 1 {
		return storageFloor{}, nil
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(pages*page), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return storageFloor{}, err
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m, unix.MADV_RANDOM); err != nil {
		return storageFloor{}, err
	}
	r := rand.New(rand.NewPCG(7, 11))
	offs := make([]int64, batch)
	// pick drops the file from the cache (the whole file: a page of a
	// larger folio cannot be dropped alone) and chooses k random pages.
	pick := func(k int) error {
		if err := unix.Madvise(m, unix.MADV_DONTNEED); err != nil {
			return err
		}
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			return err
		}
		for i := range offs[:k] {
			offs[i] = page * r.Int64N(pages)
		}
		return nil
	}
	var sum byte
	single := make([]time.Duration, 0, n)
	for range n {
		if err := pick(1); err != nil {
			return storageFloor{}, err
		}
		t := time.Now()
		sum += m[offs[0]]
		single = append(single, time.Since(t))
	}
	together := make([]time.Duration, 0, n)
	for range n {
		if err := pick(batch); err != nil {
			return storageFloor{}, err
		}
		t := time.Now()
		for _, off := range offs {
			if err := unix.Madvise(m[off:off+page], unix.MADV_WILLNEED); err != nil {
				return storageFloor{}, err
			}
		}
		for _, off := range offs {
			sum += m[off]
		}
		together = append(together, time.Since(t))
	}
	runtime.KeepAlive(sum) // or the reads could be left out
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / 1000
	}
	return storageFloor{ReadMicros: median(single), Batch: batch, BatchMicros: median(together)}, nil
}
