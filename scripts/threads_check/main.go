// Command threads_check builds the same index with 1, 2 and 4 threads and
// checks that the parallel build changes only the time: the index files
// must be byte for byte the same. It prints the time, the chunks and the
// repaired chunks of each build, and writes JSON to results/.
//
// Usage:
//
//	go run ./scripts/threads_check -rows 20000000
//	go run ./scripts/threads_check -rows 20000000 -multiline 0.02
//	go run ./scripts/threads_check -csv big.csv -threads 1,2,4
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

type result struct {
	Threads int     `json:"threads"`
	Seconds float64 `json:"seconds"`
	Chunks  int     `json:"chunks"`
	Repairs int     `json:"repairs"`
	SHA256  string  `json:"index_sha256"`
}

var summary = regexp.MustCompile(`with (\d+) threads \((\d+) chunks, (\d+) repaired\)`)

func main() {
	rows := flag.Int("rows", 1_000_000, "rows to generate when -csv is not given")
	multiline := flag.Float64("multiline", 0, "share of generated rows with a multi-line field")
	csv := flag.String("csv", "", "the CSV to index (generated when empty)")
	bin := flag.String("bin", "", "the csvidx binary (built when empty)")
	threads := flag.String("threads", "1,2,4", "thread counts to try")
	limit := flag.Int("mem-limit-mib", 1024, "--mem-limit-mib of every build")
	results := flag.String("results", "results", "directory for the JSON results")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("threads_check: ")

	work, binary, err := run.Workspace("csvidx-threads", *bin)
	check(err)
	defer os.RemoveAll(work)
	*bin = binary
	if *csv == "" {
		*csv = filepath.Join(work, "orders.csv")
		check(run.Generate(*csv, *rows, "-multiline", fmt.Sprint(*multiline)))
	}
	st, err := os.Stat(*csv)
	check(err)
	fmt.Printf("%s: %d bytes, %d cores, --mem-limit-mib %d\n\n", *csv, st.Size(), runtime.NumCPU(), *limit)
	fmt.Printf("%8s %10s %8s %8s %8s  %s\n", "threads", "build s", "speedup", "chunks", "repairs", "index sha256")
	var runs []result
	for _, f := range strings.Split(*threads, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(f))
		check(err)
		idx := filepath.Join(work, "index.csvidx")
		m, err := run.Measure(*bin, "build", *csv, "--key", "user_id", "--index", idx, "--threads", strconv.Itoa(t),
			"--mem-limit-mib", strconv.Itoa(*limit), "--tmp-dir", work)
		check(err)
		r := result{Threads: t, Seconds: m.Seconds}
		if sm := summary.FindStringSubmatch(m.Stdout); sm != nil {
			r.Threads, _ = strconv.Atoi(sm[1])
			r.Chunks, _ = strconv.Atoi(sm[2])
			r.Repairs, _ = strconv.Atoi(sm[3])
		}
		r.SHA256, err = run.SHA256(idx)
		check(err)
		runs = append(runs, r)
		fmt.Printf("%8d %10.2f %7.2fx %8d %8d  %s\n", r.Threads, r.Seconds, runs[0].Seconds/r.Seconds, r.Chunks, r.Repairs, r.SHA256[:16])
	}
	same := true
	for _, r := range runs {
		same = same && r.SHA256 == runs[0].SHA256
	}
	check(os.MkdirAll(*results, 0o755))
	name := filepath.Join(*results, fmt.Sprintf("threads-%d-%s.json", st.Size(), time.Now().UTC().Format("20060102T150405")))
	b, err := json.MarshalIndent(map[string]any{"csv_bytes": st.Size(), "cores": runtime.NumCPU(), "mem_limit_mib": *limit, "runs": runs, "identical": same}, "", "  ")
	check(err)
	check(os.WriteFile(name, append(b, '\n'), 0o644))
	fmt.Println("\nwrote", name)
	if !same {
		log.Fatal("FAIL: the index differs between thread counts")
	}
	fmt.Println("ok: the index is identical at every thread count")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
