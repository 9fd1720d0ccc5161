package main

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// memoryFloor is what this machine's memory allows a warm lookup in a large
// mapped file: the mean time of a random read that depends on the one
// before (a search's probes), and of a batch of independent random reads that
// wait for one another only as a group (a key's rows, touched together).
type memoryFloor struct {
	Bytes           int64   `json:"bytes"`
	DependentNanos  float64 `json:"dependent_read_ns"`
	Batch           int     `json:"batch"`
	BatchNanos      float64 `json:"batch_ns"`
	PerLookupMicros float64 `json:"floor_per_lookup_us"`
}

// zero is 0, in a variable the compiler cannot see through: it makes each
// batch of reads wait for the previous one without changing the addresses.
var zero uint64

// measureMemory times random reads of size bytes of memory made of 4 KiB
// pages, as a file's pages are mapped: far larger than the caches and the
// TLB reach, so each read misses both, as a lookup's reads of a big index
// and CSV do. A warm lookup reads, one after the other, about two fence
// probes, one or two index probes and then its rows together; probes is
// that chain's length, used for the floor per lookup.
func measureMemory(size int64, batch int, probes float64) (memoryFloor, error) {
	m, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return memoryFloor{}, err
	}
	defer unix.Munmap(m)
	_ = unix.Madvise(m, unix.MADV_NOHUGEPAGE) // 4 KiB pages, like a file's
	const page = 4096
	pages := size / page
	// A random cycle through the pages: each page's first word is the
	// offset of the next page to read.
	r := rand.New(rand.NewPCG(3, 5))
	order := r.Perm(int(pages))
	for i, p := range order {
		next := order[(i+1)%len(order)]
		binary.LittleEndian.PutUint64(m[int64(p)*page:], uint64(next)*page)
	}
	const steps = 200_000
	at := uint64(order[0]) * page
	t := time.Now()
	for range steps {
		at = binary.LittleEndian.Uint64(m[at:])
	}
	dependent := float64(time.Since(t).Nanoseconds()) / steps

	offs := make([]uint64, batch*1024)
	for i := range offs {
		offs[i] = uint64(r.Int64N(pages))*page + uint64(r.IntN(page/8))*8
	}
	const groups = 50_000
	var sum uint64
	t = time.Now()
	for g := range groups {
		base := (g % 1024) * batch
		dep := sum & zero
		for _, off := range offs[base : base+batch] {
			sum += binary.LittleEndian.Uint64(m[off+dep:])
		}
	}
	group := float64(time.Since(t).Nanoseconds()) / groups
	runtime.KeepAlive(at) // or the reads could be left out
	runtime.KeepAlive(sum)
	return memoryFloor{Bytes: size, DependentNanos: dependent, Batch: batch, BatchNanos: group,
		PerLookupMicros: (probes*dependent + group) / 1000}, nil
}
