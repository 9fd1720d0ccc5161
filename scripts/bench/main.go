// Command bench measures csvidx on an orders CSV next to the tools people
// would use instead, in the same run, and prints a table and writes JSON.
//
// Usage:
//
//	go run ./scripts/bench -rows 10000000            # generate, build, measure
//	go run ./scripts/bench -csv big.csv -keys k.txt  # measure an existing file
//
// It measures, with the page cache warm:
//
//   - build: the time of csvidx build, and the index size;
//   - get (process): csvidx get of one ordinary key as a separate process,
//     median of -runs runs, next to a Go hello-world process in the same
//     run (the floor for any Go command);
//   - get heavy (process): the same for a heavy key;
//   - lookup (in-process): csvidx bench over the keys file: p50, p90, p99;
//   - full scans of the same file for the same key: grep -F -c and, when
//     installed, rg -F -c.
//
// Results go to results/bench-ROWS-DATE.json with the machine's cores and
// the tool versions, so runs can be compared.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

type config struct {
	rows            int
	csv             string
	keys            string
	bin             string
	work            string
	results         string
	runs            int
	ordinary, heavy string
}

// result is one line of the table.
type result struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Detail  string  `json:"detail,omitempty"`
}

type report struct {
	Date      string            `json:"date"`
	Cores     int               `json:"cores"`
	GoVersion string            `json:"go"`
	Rows      int               `json:"rows"`
	CSVBytes  int64             `json:"csv_bytes"`
	Results   []result          `json:"results"`
	InProcess map[string]any    `json:"in_process"`
	Versions  map[string]string `json:"versions"`
}

func main() {
	var c config
	flag.IntVar(&c.rows, "rows", 1_000_000, "rows to generate when -csv is not given")
	flag.StringVar(&c.csv, "csv", "", "an orders CSV to measure (generated when empty)")
	flag.StringVar(&c.keys, "keys", "", "ordinary keys, one per line (generated with the CSV)")
	flag.StringVar(&c.bin, "bin", "", "the csvidx binary (built when empty)")
	flag.StringVar(&c.work, "work", "", "directory for generated files (a temporary one when empty)")
	flag.StringVar(&c.results, "results", "results", "directory for the JSON results")
	flag.IntVar(&c.runs, "runs", 100, "runs of each per-process measurement")
	flag.StringVar(&c.ordinary, "ordinary", "", "an ordinary key (the first of -keys when empty)")
	flag.StringVar(&c.heavy, "heavy", "", "a heavy key (known when the CSV is generated)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("bench: ")
	if err := run(&c); err != nil {
		log.Fatal(err)
	}
}

func run(c *config) error {
	if c.work == "" {
		dir, err := os.MkdirTemp("", "csvidx-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.work = dir
	}
	if c.bin == "" {
		c.bin = filepath.Join(c.work, "csvidx")
		if err := sh("go", "build", "-o", c.bin, "./cmd/csvidx"); err != nil {
			return err
		}
	}
	hello, err := buildHello(c.work)
	if err != nil {
		return err
	}
	ordinary, heavy := c.ordinary, c.heavy
	if c.csv == "" {
		c.csv, c.keys = filepath.Join(c.work, "orders.csv"), filepath.Join(c.work, "keys.txt")
		stats, err := output("go", "run", "./scripts/csvgen", "-rows", fmt.Sprint(c.rows), "-o", c.csv,
			"-keys-out", c.keys, "-keys-n", "1000", "-stats")
		if err != nil {
			return err
		}
		ordinary, heavy = statField(stats, "ordinary ids present:"), statField(stats, "heavy ids present:")
	}
	if ordinary == "" {
		keys, err := os.ReadFile(c.keys)
		if err != nil {
			return err
		}
		ordinary, _, _ = strings.Cut(string(keys), "\n")
	}
	st, err := os.Stat(c.csv)
	if err != nil {
		return err
	}
	rep := &report{
		Date: time.Now().UTC().Format(time.RFC3339), Cores: runtime.NumCPU(), GoVersion: runtime.Version(),
		Rows: c.rows, CSVBytes: st.Size(), Versions: map[string]string{},
	}
	add := func(name string, d time.Duration, detail string) {
		rep.Results = append(rep.Results, result{name, d.Seconds(), detail})
		fmt.Printf("%-34s %12s  %s\n", name, round3(d), detail)
	}
	fmt.Printf("%s: %d bytes, %d cores\n\n%-34s %12s  %s\n", c.csv, st.Size(), rep.Cores, "measurement", "time", "detail")

	t := time.Now()
	if err := sh(c.bin, "build", c.csv, "--key", "user_id"); err != nil {
		return err
	}
	buildTime := time.Since(t)
	ist, err := os.Stat(c.csv + ".csvidx")
	if err != nil {
		return err
	}
	add("build (1 thread, all in RAM)", buildTime, fmt.Sprintf("%.2f GB/s, index %.1f%% of the CSV", float64(st.Size())/buildTime.Seconds()/1e9, 100*float64(ist.Size())/float64(st.Size())))

	helloTime := median(c.runs, func() error { return runQuiet(hello) })
	add("Go hello-world process", helloTime, "the floor for any Go command")
	getTime := median(c.runs, func() error { return runQuiet(c.bin, "get", c.csv, ordinary) })
	add("csvidx get (process, warm)", getTime, fmt.Sprintf("user %s; %.2fx hello-world", ordinary, getTime.Seconds()/helloTime.Seconds()))
	if heavy != "" {
		heavyTime := median(c.runs/10+1, func() error { return runQuiet(c.bin, "get", c.csv, heavy) })
		add("csvidx get heavy key (process)", heavyTime, "user "+heavy)
	}

	out, err := output(c.bin, "bench", c.csv, c.keys, "--json", "--rounds", "20")
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(out), &rep.InProcess); err != nil {
		return err
	}
	p50 := time.Duration(rep.InProcess["p50_ns"].(float64))
	add("lookup (in-process, p50)", p50, fmt.Sprintf("p90 %v, p99 %v, %.1f rows per key",
		time.Duration(rep.InProcess["p90_ns"].(float64)), time.Duration(rep.InProcess["p99_ns"].(float64)), rep.InProcess["rows_per_key"]))

	pattern := "," + ordinary + ","
	for _, tool := range [][]string{{"grep", "-F", "-c"}, {"rg", "-F", "-c"}} {
		if _, err := exec.LookPath(tool[0]); err != nil {
			fmt.Printf("%-34s %12s  not installed\n", strings.Join(tool, " "), "-")
			continue
		}
		if v, err := output(tool[0], "--version"); err == nil {
			rep.Versions[tool[0]], _, _ = strings.Cut(v, "\n")
		}
		args := append(tool[1:], pattern, c.csv)
		runQuiet(tool[0], args...) // warm the cache
		d := median(3, func() error { return ignoreExit1(runQuiet(tool[0], args...)) })
		add(strings.Join(tool, " ")+" (full scan, warm)", d, fmt.Sprintf("%.0fx csvidx get", d.Seconds()/getTime.Seconds()))
	}

	if err := os.MkdirAll(c.results, 0o755); err != nil {
		return err
	}
	name := filepath.Join(c.results, fmt.Sprintf("bench-%d-%s.json", c.rows, time.Now().UTC().Format("20060102T150405")))
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println("\nwrote", name)
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

// round3 rounds d to three significant digits.
func round3(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 1000 {
		unit *= 10
	}
	return d.Round(unit)
}

// median runs fn n times and returns the median duration.
func median(n int, fn func() error) time.Duration {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t := time.Now()
		if err := fn(); err != nil {
			log.Fatal(err)
		}
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// runQuiet runs a command with its output read and dropped through a pipe:
// not /dev/null, which GNU grep notices and stops at the first match.
func runQuiet(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout = io.Discard
	return cmd.Run()
}

// ignoreExit1 treats exit status 1 (no match) as success.
func ignoreExit1(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil
	}
	return err
}

// buildHello compiles a Go hello-world into dir.
func buildHello(dir string) (string, error) {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"), 0o644)
	bin := filepath.Join(dir, "hello-bin")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Stderr = os.Stderr
	return bin, cmd.Run()
}

// statField returns the first word after label in csvgen's -stats output.
func statField(stats, label string) string {
	for _, line := range strings.Split(stats, "\n") {
		if rest, ok := strings.CutPrefix(line, label); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

func sh(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// output runs a command and returns its standard output and error together.
func output(name string, args ...string) (string, error) {
	var b bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, b.String())
	}
	return b.String(), nil
}
