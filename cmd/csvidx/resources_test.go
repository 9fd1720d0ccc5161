package main

import (
	"runtime"
	"testing"
)

// TestSpareProc checks that the writing commands run one P more than their
// workers, and never lower GOMAXPROCS.
func TestSpareProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct{ procs, threads, want int }{
		{1, 2, 3},                               // raised to one more than the workers
		{8, 2, 8},                               // already enough: left alone
		{1, 0, runtime.NumCPU() + 1},            // 0 threads: one per core
		{runtime.NumCPU(), 1, runtime.NumCPU()}, // a sequential build on several cores
	} {
		runtime.GOMAXPROCS(tc.procs)
		spareProc(tc.threads)
		if got := runtime.GOMAXPROCS(0); got != tc.want {
			t.Errorf("GOMAXPROCS %d, threads %d: now %d, want %d", tc.procs, tc.threads, got, tc.want)
		}
	}
}
