// Command bench measures csvidx on an orders CSV next to the tools people
// use instead, on the same file in the same run, checks that every tool
// finds the same rows before it reports a time, prints a table with ratios,
// and writes JSON to results/tmp/ (-results says where else).
//
// Usage:
//
//	go run ./scripts/bench -rows 20000000              # generate, then measure
//	go run ./scripts/bench -csv big.csv -keys k.txt \
//	    -ordinary 819738 -heavy 484                     # an existing file
//
// Measured for csvidx: the build (time, peak anonymous memory, index size);
// csvidx get as a separate process for an ordinary key, a heavy key and a
// batch of 1000 keys, warm and cold (the CSV and index files dropped from
// the page cache with posix_fadvise before each run); in-process lookups
// (csvidx bench, warm and cold); update after a 2% append next to a full
// rebuild, on a copy. A Go hello-world process is timed in the same run:
// the floor of any Go command. Compared, where installed: grep -F and
// rg -F (full scans), DuckDB (scripts/duckdb, its own module), SQLite
// (.import, CREATE INDEX, lookups: scripts/sqlite_bench.py) and pandas
// (read_csv + filter: scripts/pandas_bench.py). A tool that is missing is
// reported as skipped; one that finds other counts fails the run.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// config is a run's flags: the shared ones (-rows, -csv, -bin, -work,
// -results) in the Script, and the benchmark's own.
type config struct {
	*run.Script
	keys                     string
	runs, coldRuns           int
	ordinary, heavy, missing string
	skipUpdate, skipTools    bool
}

func main() {
	c := config{Script: run.NewScript("bench")}
	c.CSVFlags(1_000_000, "an orders CSV to measure (generated when empty)")
	c.WorkFlag("directory for generated files (a temporary one when empty)")
	flag.StringVar(&c.keys, "keys", "", "1000 ordinary keys, one per line, for the batch (generated with the CSV)")
	flag.IntVar(&c.runs, "runs", 100, "runs of each warm per-process measurement")
	flag.IntVar(&c.coldRuns, "cold-runs", 20, "runs of each cold per-process measurement")
	flag.StringVar(&c.ordinary, "ordinary", "", "an ordinary key (the first of -keys when empty)")
	flag.StringVar(&c.heavy, "heavy", "", "a heavy key (known when the CSV is generated)")
	flag.StringVar(&c.missing, "missing", "", "a key that does not occur")
	flag.BoolVar(&c.skipUpdate, "skip-update", false, "do not measure update (it copies the CSV)")
	flag.BoolVar(&c.skipTools, "skip-tools", false, "do not run DuckDB, SQLite and pandas")
	flag.Parse()
	if err := benchmark(&c); err != nil {
		log.Fatal(err)
	}
}

func benchmark(c *config) error {
	remove, err := c.Workspace("csvidx-bench")
	if err != nil {
		return err
	}
	defer remove()
	if c.CSV == "" {
		if err := generate(c); err != nil {
			return err
		}
	} else {
		c.Rows = 0 // not generated: the index says how many
	}
	if c.ordinary == "" {
		keys, err := os.ReadFile(c.keys)
		if err != nil {
			return err
		}
		c.ordinary, _, _ = strings.Cut(string(keys), "\n")
	}
	if c.missing == "" {
		c.missing = "no-such-user"
	}
	st, err := os.Stat(c.CSV)
	if err != nil {
		return err
	}
	rep := newReport(c, st.Size())
	fmt.Printf("%s: %d bytes, %d cores\n\n", c.CSV, st.Size(), runtime.NumCPU())

	counts, err := csvidxCounts(c)
	if err != nil {
		return err
	}
	rep.Counts = counts
	if err := measureCsvidx(c, rep); err != nil {
		return err
	}
	if !c.skipUpdate {
		if err := measureUpdate(c, rep); err != nil {
			return err
		}
	}
	if err := measureScans(c, rep); err != nil {
		return err
	}
	if !c.skipTools {
		if err := measureTools(c, rep); err != nil {
			return err
		}
	}
	rep.print()
	return rep.save(c.Results)
}

// generate writes the orders CSV, the batch keys and the known ids.
func generate(c *config) error {
	c.CSV, c.keys = filepath.Join(c.Work, "orders.csv"), filepath.Join(c.Work, "keys.txt")
	stats, err := run.GenerateStats(c.CSV, c.Rows, "-keys-out", c.keys, "-keys-n", "1000")
	if err != nil {
		return err
	}
	c.ordinary = run.StatField(stats, "ordinary ids present:")
	c.heavy = run.StatField(stats, "heavy ids present:")
	c.missing = run.StatField(stats, "missing id:")
	return nil
}

// csvidxCounts builds the index and returns csvidx's counts of the probe
// keys and of the batch: what every other tool must find.
func csvidxCounts(c *config) (map[string]int64, error) {
	if _, err := run.Output(c.Bin, "build", c.CSV, "--key", "user_id"); err != nil {
		return nil, err
	}
	out, err := run.OutputAllowing1(c.Bin, "get", c.CSV, "--count", c.ordinary, c.heavy, c.missing)
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, n, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		counts[k], _ = strconv.ParseInt(n, 10, 64)
	}
	out, err = run.OutputAllowing1(c.Bin, "get", c.CSV, "--count", "--keys-file", c.keys)
	if err != nil {
		return nil, err
	}
	var batch int64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if _, n, ok := strings.Cut(line, "\t"); ok {
			v, _ := strconv.ParseInt(n, 10, 64)
			batch += v
		}
	}
	counts[batchKey] = batch
	return counts, nil
}

const batchKey = "(batch of 1000 keys)" // the batch's total in the counts map

// newReport starts the report of a run.
func newReport(c *config, size int64) *report {
	return &report{
		Date: time.Now().UTC().Format(time.RFC3339), Cores: runtime.NumCPU(), GoVersion: runtime.Version(),
		MemTotal: memTotal(), CSV: c.CSV, CSVBytes: size, Rows: c.Rows,
		Keys:     map[string]string{"ordinary": c.ordinary, "heavy": c.heavy, "missing": c.missing},
		Versions: map[string]string{},
	}
}

// memTotal reads the machine's memory from /proc/meminfo.
func memTotal() string {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.Join(strings.Fields(line)[1:], " ")
}
