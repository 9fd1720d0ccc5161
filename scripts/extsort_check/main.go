// Command extsort_check builds the same index under several memory limits
// and checks the promises of the external sort: the index is byte for byte
// the same at every limit, the process's anonymous memory stays near the
// limit, and no spill file is left behind. It prints a table and writes
// JSON to results/tmp/ (-results says where else). Every build writes a fresh index (the last one is
// removed first, and the CSV read through, untimed). With -rounds N the
// limits take turns N times, every second time in the reverse order; the
// time shown is the median, the memory the highest.
//
// Usage:
//
//	go run ./scripts/extsort_check -rows 20000000
//	go run ./scripts/extsort_check -csv big.csv -limits 32,64,256,1024,100000
//	go run ./scripts/extsort_check -csv big.csv -limits 64,1024,100000 -rounds 4
//
// Peak memory is the highest RssAnon of the csvidx process, read from
// /proc/PID/status every 5 ms: the CSV's mapped pages are not counted
// (RssFile), since the kernel can drop them at any time.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

type result struct {
	LimitMiB    int       `json:"limit_mib"`
	Seconds     float64   `json:"seconds"` // the median of Rounds
	Rounds      []float64 `json:"rounds_seconds"`
	PeakAnonMiB float64   `json:"peak_anon_mib"` // the highest of the rounds
	SHA256      string    `json:"index_sha256"`
	Leftovers   int       `json:"temp_files_left"` // in all rounds
}

func main() {
	s := run.NewScript("extsort_check")
	s.CSVFlags(1_000_000, "the CSV to index (generated when empty)")
	limits := flag.String("limits", "32,64,256,1024,100000", "memory limits to try, in MiB (100000: all in memory)")
	threads := flag.Int("threads", 0, "--threads for every build (0: all cores)")
	rounds := flag.Int("rounds", 1, "times each limit builds, in turns; the median time is shown")
	flag.Parse()

	remove, err := s.Workspace("csvidx-extsort")
	check(err)
	defer remove()
	check(s.GenerateCSV())
	csv, bin, work := s.CSV, s.Bin, s.Work
	st, err := os.Stat(csv)
	check(err)
	fmt.Printf("%s: %d bytes, %d cores, --threads %d\n\n", csv, st.Size(), runtime.NumCPU(), *threads)
	tmp := filepath.Join(work, "spill")
	check(os.MkdirAll(tmp, 0o755))
	limitsMiB, err := run.Ints(*limits)
	check(err)
	runs := make([]result, len(limitsMiB))
	idx := filepath.Join(work, "index.csvidx")
	var args [][]string
	for _, limit := range limitsMiB {
		args = append(args, run.BuildArgs(csv, idx, tmp, *threads, limit))
	}
	check(run.Rounds(run.Measure, bin, idx, []string{csv}, *rounds, args, func(i int, b run.Build) error {
		r := &runs[i]
		r.LimitMiB = limitsMiB[i]
		r.Rounds = append(r.Rounds, b.Seconds)
		r.PeakAnonMiB = max(r.PeakAnonMiB, float64(b.PeakAnonKiB)/1024)
		r.SHA256 = b.SHA256
		left, _ := os.ReadDir(tmp)
		near, _ := filepath.Glob(idx + ".tmp-*")
		r.Leftovers += len(left) + len(near)
		return nil
	}))
	fmt.Printf("%10s %10s %14s %10s  %-16s  %s\n", "limit MiB", "build s", "peak anon MiB", "temp left", "index sha256", "rounds s")
	for i := range runs {
		r := &runs[i]
		r.Seconds = run.MedianOf(r.Rounds)
		fmt.Printf("%10d %10.2f %14.1f %10d  %-16s  %s\n", r.LimitMiB, r.Seconds, r.PeakAnonMiB, r.Leftovers, r.SHA256[:16], run.Seconds(r.Rounds))
	}
	same := true
	for _, r := range runs {
		same = same && r.SHA256 == runs[0].SHA256 && r.Leftovers == 0
	}

	name, err := run.SaveResults(s.Results, "extsort", st.Size(), map[string]any{"csv_bytes": st.Size(), "cores": runtime.NumCPU(), "threads": *threads, "rounds": max(1, *rounds), "warm": true, "runs": runs, "identical": same})
	check(err)
	fmt.Println("\nwrote", name)
	if !same {
		log.Fatal("FAIL: the indexes differ between limits, or temporary files were left")
	}
	fmt.Println("ok: the index is identical at every limit and no temporary file is left")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
