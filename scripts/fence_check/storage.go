package main

import (
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// storageFloor is what the storage under the CSV allows a cold lookup: the
// median time of one random 4 KiB read, and of a batch of parallel ones.
type storageFloor struct {
	ReadMicros  float64 `json:"read_p50_us"`  // one read at a time (queue depth 1)
	Batch       int     `json:"batch"`        // reads issued together
	BatchMicros float64 `json:"batch_p50_us"` // until the last of them is back
}

// measureStorage times random 4 KiB reads of path that bypass the page
// cache (O_DIRECT): n single reads, then n batches of batch reads issued at
// once, each from its own goroutine. A cold lookup can be no faster than
// its dependent trips to storage: the fence and index pages one after the
// other, then its rows together.
func measureStorage(path string, n, batch int) (storageFloor, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return storageFloor{}, err
	}
	defer unix.Close(fd)
	st, err := os.Stat(path)
	if err != nil {
		return storageFloor{}, err
	}
	pages := st.Size() / 4096
	if pages < 1 {
		return storageFloor{}, nil
	}
	// O_DIRECT needs aligned buffers: page-aligned anonymous memory.
	mem, err := unix.Mmap(-1, 0, 4096*max(batch, 1), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return storageFloor{}, err
	}
	defer unix.Munmap(mem)
	r := rand.New(rand.NewPCG(7, 11))
	read := func(buf []byte) error {
		_, err := unix.Pread(fd, buf, 4096*r.Int64N(pages))
		return err
	}
	single := make([]time.Duration, 0, n)
	for range n {
		t := time.Now()
		if err := read(mem[:4096]); err != nil {
			return storageFloor{}, err
		}
		single = append(single, time.Since(t))
	}
	together := make([]time.Duration, 0, n)
	offs := make([]int64, batch)
	errs := make([]error, batch)
	for range n {
		for i := range offs {
			offs[i] = 4096 * r.Int64N(pages)
		}
		var wg sync.WaitGroup
		t := time.Now()
		for i, off := range offs {
			wg.Go(func() { _, errs[i] = unix.Pread(fd, mem[4096*i:4096*(i+1)], off) })
		}
		wg.Wait()
		together = append(together, time.Since(t))
		for _, err := range errs {
			if err != nil {
				return storageFloor{}, err
			}
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / 1000
	}
	return storageFloor{ReadMicros: median(single), Batch: batch, BatchMicros: median(together)}, nil
}
