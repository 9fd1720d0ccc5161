// Command threads_check builds the same index with 1, 2 and 4 threads and
// checks that the parallel build changes only the time: the index files
// must be byte for byte the same. It prints the time, the chunks and the
// repaired chunks of each build, its CPU time (user and system, from the
// build's rusage) and the cores it kept busy on average (the median over the
// rounds of CPU time over wall time), and writes JSON to
// results/tmp/. Every build writes a fresh index on a warm cache (the last
// index is removed and the CSV read through first, untimed). With
// -rounds N the thread counts take turns N times, every second time in the
// reverse order (so N even weighs a drifting machine on each alike), and
// each time shown is the median: timings on a VM drift between runs
// minutes apart.
//
// After each build at the first thread count it also times the disk's
// floor (run.WriteFloor): writing as many bytes as the index holds the way
// the build writes it, then fsync. No build can finish sooner than its scan
// plus most of that, at any thread count, so on a slow disk it caps the
// speedup (-floor=false skips it).
//
// The other two commands that take --threads are timed the same way:
// verify of the index just built (which must find it equal at every thread
// count), and update of rows appended to a copy of the CSV: the copy holds
// the first part of it (all but -append of its bytes, cut after a newline),
// is indexed, then gets the rest, and each update (--no-compact, the tail
// removed before each) must write the same tail. The tail is then merged
// and the grown copy verified, so the rows the update indexed are checked
// against a fresh build too.
//
// Usage:
//
//	go run ./scripts/threads_check -rows 20000000
//	go run ./scripts/threads_check -rows 20000000 -multiline 0.02
//	go run ./scripts/threads_check -csv big.csv -threads 1,2,4
//	go run ./scripts/threads_check -csv big.csv -threads 1,2 -rounds 6
//	go run ./scripts/threads_check -csv big.csv -append 0   # builds and verifies only
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// timing is one command's times at one thread count, over the rounds.
type timing struct {
	Threads    int       `json:"threads"`
	Seconds    float64   `json:"seconds"` // the median of Rounds
	Rounds     []float64 `json:"rounds_seconds"`
	CPUSeconds float64   `json:"cpu_seconds"` // the median of CPURounds
	CPURounds  []float64 `json:"rounds_cpu_seconds"`
	Cores      float64   `json:"cores"` // the median of each round's CPU over its wall time
}

// add records one round.
func (t *timing) add(r run.Result) {
	t.Rounds = append(t.Rounds, r.Seconds)
	t.CPURounds = append(t.CPURounds, r.CPUSeconds)
}

// settle sets the medians from the rounds.
func (t *timing) settle() {
	t.Seconds = run.MedianOf(t.Rounds)
	t.CPUSeconds = run.MedianOf(t.CPURounds)
	cores := make([]float64, len(t.Rounds))
	for j, wall := range t.Rounds {
		cores[j] = t.CPURounds[j] / wall
	}
	t.Cores = run.MedianOf(cores)
}

// result is one thread count's builds.
type result struct {
	timing
	Chunks  int    `json:"chunks"`
	Repairs int    `json:"repairs"`
	InOrder int    `json:"in_order"` // chunks no worker scanned (see scan/chunked/admission.go)
	SHA256  string `json:"index_sha256"`
}

// updateResult is one thread count's updates.
type updateResult struct {
	timing
	SHA256 string `json:"tail_sha256"`
}

func main() {
	s := run.NewScript("threads_check")
	s.CSVFlags(1_000_000, "the CSV to index (generated when empty)")
	multiline := flag.Float64("multiline", 0, "share of generated rows with a multi-line field")
	threads := flag.String("threads", "1,2,4", "thread counts to try")
	limit := flag.Int("mem-limit-mib", 1024, "--mem-limit-mib of every build")
	rounds := flag.Int("rounds", 1, "times each thread count builds, in turns; the median is shown")
	floor := flag.Bool("floor", true, "time the disk's floor: writing the index's bytes as a build does, after each build at the first thread count")
	appendShare := flag.Float64("append", 0.1, "share of the CSV's bytes appended for the update timings (0: no update timings)")
	flag.Parse()

	remove, err := s.Workspace("csvidx-threads")
	check(err)
	defer remove()
	check(s.GenerateCSV("-multiline", fmt.Sprint(*multiline)))
	csv, bin, work := s.CSV, s.Bin, s.Work
	st, err := os.Stat(csv)
	check(err)
	fmt.Printf("%s: %d bytes, %d cores, --mem-limit-mib %d\n\n", csv, st.Size(), runtime.NumCPU(), *limit)
	counts, err := run.Ints(*threads)
	check(err)
	runs := make([]result, len(counts))
	idx := filepath.Join(work, "index.csvidx")
	var (
		args       [][]string
		floors     []float64 // WriteFloor after each build at counts[0]
		floorBytes int64
	)
	for _, t := range counts {
		args = append(args, run.BuildArgs(csv, idx, work, t, *limit))
	}
	check(run.Rounds(run.Timed, bin, idx, []string{csv}, *rounds, args, func(i int, b run.Build) error {
		r := &runs[i]
		r.Threads = counts[i]
		var info struct { // what build --json prints, the part used here
			Build struct {
				Threads, Chunks, Repairs int
				InOrder                  int `json:"in_order"`
			}
		}
		if err := json.Unmarshal([]byte(b.Stdout), &info); err != nil {
			return fmt.Errorf("build --json printed %q: %w", b.Stdout, err)
		}
		r.Threads, r.Chunks, r.Repairs, r.InOrder = info.Build.Threads, info.Build.Chunks, info.Build.Repairs, info.Build.InOrder
		r.add(b.Result)
		r.SHA256 = b.SHA256
		if i != 0 || !*floor {
			return nil
		}
		ist, err := os.Stat(idx)
		if err != nil {
			return err
		}
		d, err := run.WriteFloor(work, ist.Size())
		floorBytes = ist.Size()
		floors = append(floors, d.Seconds())
		return err
	}))
	fmt.Printf("%8s %10s %8s %8s %6s %8s %8s  %-16s  %s\n", "threads", "build s", "speedup", "cpu s", "cores", "chunks", "repairs", "index sha256", "rounds s")
	for i := range runs {
		r := &runs[i]
		r.settle()
		fmt.Printf("%8d %10.2f %7.2fx %8.2f %6.2f %8d %8d  %-16s  %s\n", r.Threads, r.Seconds, runs[0].Seconds/r.Seconds, r.CPUSeconds, r.Cores,
			r.Chunks, r.Repairs, r.SHA256[:16], run.Seconds(r.Rounds))
	}
	if len(floors) > 0 {
		fmt.Printf("\nthe disk's floor: writing the index's %d bytes as a build does (direct, 4 MiB at a time, fsync),\nafter each build with --threads %d: %.2f s (rounds s %s)\n",
			floorBytes, counts[0], run.MedianOf(floors), run.Seconds(floors))
	}
	same := true
	for _, r := range runs {
		same = same && r.SHA256 == runs[0].SHA256
	}
	out := map[string]any{"csv_bytes": st.Size(), "cores": runtime.NumCPU(), "mem_limit_mib": *limit, "rounds": max(1, *rounds), "warm": true, "runs": runs, "identical": same}
	if len(floors) > 0 {
		out["write_floor"] = map[string]any{"bytes": floorBytes, "seconds": run.MedianOf(floors), "rounds_seconds": floors}
	}
	if same { // the index of the last build is the one verify checks
		out["verify"] = timeVerify(bin, csv, idx, work, counts, *rounds, *limit)
	}
	if same && *appendShare > 0 {
		appended, updates := timeUpdate(bin, csv, work, counts, *rounds, *limit, *appendShare)
		out["update"] = map[string]any{"appended_bytes": appended, "runs": updates}
	}
	name, err := run.SaveResults(s.Results, "threads", st.Size(), out)
	check(err)
	fmt.Println("\nwrote", name)
	if !same {
		log.Fatal("FAIL: the index differs between thread counts")
	}
	fmt.Println("ok: the index is identical at every thread count, verify finds it equal at each")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
