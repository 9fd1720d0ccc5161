// Command several measures what several indexes of one CSV cost (issue
// 29), in one run: a build of three indexes in one scan (user_id, order_id
// and the composite key user_id,status) against a build of one, and against
// three builds, in turns; and a lookup by the composite key against one by
// user_id, in process (csvidx bench) and as a process (csvidx get), in
// turns. It prints a table and writes the figures as JSON
// (run.SaveResults).
//
//	go run ./scripts/several -rows 20000000 -rounds 3
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// The keys of the three indexes, and the index files a build of them makes
// next to the CSV (see index/several.go).
var (
	threeKeys  = []string{"user_id", "order_id", "user_id,status"}
	threeFiles = []string{".csvidx", ".by-0.csvidx", ".by-1-4.csvidx"}
)

// results is what the run measured.
type results struct {
	CSV        string    `json:"csv"`
	Rows       int       `json:"rows"`
	Rounds     int       `json:"rounds"`
	One        []float64 `json:"build_one_seconds"`
	ThreeInOne []float64 `json:"build_three_in_one_scan_seconds"`
	ThreeApart []float64 `json:"build_three_apart_seconds"`
	// CPU time (user and system) of the same builds: on 2 cores, half of
	// it is the least wall time the build can take.
	OneCPU        []float64 `json:"build_one_cpu_seconds"`
	ThreeInOneCPU []float64 `json:"build_three_in_one_scan_cpu_seconds"`
	ThreeApartCPU []float64 `json:"build_three_apart_cpu_seconds"`
	// Lookups: p50 of csvidx bench, warm, in process; median of csvidx get
	// as a process.
	SingleBenchMicros    float64 `json:"single_bench_p50_us"`
	CompositeBenchMicros float64 `json:"composite_bench_p50_us"`
	SingleGetMillis      float64 `json:"single_get_ms"`
	CompositeGetMillis   float64 `json:"composite_get_ms"`
}

func main() {
	s := run.NewScript("several")
	s.CSVFlags(20_000_000, "an orders CSV to measure (generated when empty; its indexes are replaced)")
	s.WorkFlag("directory for the generated files, kept")
	rounds := flag.Int("rounds", 3, "timed builds of each kind, in turns")
	procs := flag.Int("procs", 201, "csvidx get processes of each key kind, in turns")
	flag.Parse()
	remove, err := s.Workspace("csvidx-several")
	if err != nil {
		log.Fatal(err)
	}
	defer remove()
	if err := s.GenerateCSV("-unix-ts"); err != nil {
		log.Fatal(err)
	}
	res := &results{CSV: s.CSV, Rounds: *rounds}
	one := filepath.Join(s.Work, "one.csvidx")
	clear := func() error {
		for _, f := range append(threeFiles, ".one") {
			if err := run.RemoveIndex(s.CSV + f); err != nil {
				return err
			}
		}
		return run.RemoveIndex(one)
	}
	build := func(args ...string) (run.Result, error) {
		return run.Timed(s.Bin, append([]string{"build", s.CSV, "--threads", "2", "-q"}, args...)...)
	}
	err = run.Turns(*rounds, 3, func(_, i int) error {
		if err := clear(); err != nil {
			return err
		}
		if err := run.Warm(s.CSV); err != nil {
			return err
		}
		switch i {
		case 0:
			m, err := build("--key", "user_id", "--index", one)
			res.One, res.OneCPU = append(res.One, m.Seconds), append(res.OneCPU, m.CPUSeconds)
			return err
		case 1:
			m, err := build("--key", threeKeys[0], "--key", threeKeys[1], "--key", threeKeys[2])
			res.ThreeInOne, res.ThreeInOneCPU = append(res.ThreeInOne, m.Seconds), append(res.ThreeInOneCPU, m.CPUSeconds)
			return err
		}
		var total, cpu float64
		for _, k := range threeKeys {
			m, err := build("--key", k, "--index", s.CSV+".one")
			if err != nil {
				return err
			}
			total, cpu = total+m.Seconds, cpu+m.CPUSeconds
			if err := run.RemoveIndex(s.CSV + ".one"); err != nil {
				return err
			}
		}
		res.ThreeApart, res.ThreeApartCPU = append(res.ThreeApart, total), append(res.ThreeApartCPU, cpu)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := clear(); err != nil {
		log.Fatal(err)
	}
	if _, err := build("--key", threeKeys[0], "--key", threeKeys[1], "--key", threeKeys[2]); err != nil {
		log.Fatal(err)
	}
	var info []struct {
		Rows int `json:"rows"`
	}
	out, err := run.Output(s.Bin, "info", s.CSV, "--json")
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil || len(info) != 3 {
		log.Fatalf("info --json: %v, %d indexes", err, len(info))
	}
	res.Rows = info[0].Rows
	single, composite, err := sampleKeys(s.CSV, s.Work, 2000)
	if err != nil {
		log.Fatal(err)
	}
	if res.SingleBenchMicros, err = benchP50(s.Bin, s.CSV, "user_id", single); err != nil {
		log.Fatal(err)
	}
	if res.CompositeBenchMicros, err = benchP50(s.Bin, s.CSV, "user_id,status", composite); err != nil {
		log.Fatal(err)
	}
	singles, composites := lines(single), lines(composite)
	k := 0
	a, b, err := run.Alternate(*procs, func() (time.Duration, error) {
		k++
		return run.Time(s.Bin, "get", s.CSV, "--by", "user_id", singles[k%len(singles)])
	}, func() (time.Duration, error) {
		return run.Time(s.Bin, "get", s.CSV, "--by", "user_id,status", composites[k%len(composites)])
	})
	if err != nil {
		log.Fatal(err)
	}
	res.SingleGetMillis, res.CompositeGetMillis = a.Seconds()*1000, b.Seconds()*1000
	report(res)
	st, _ := os.Stat(s.CSV)
	name, err := run.SaveResults(s.Results, "several", st.Size(), res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("\nwrote", name)
}

// sampleKeys writes n user ids and n (user_id, status) values of rows of
// the CSV, picked at random from its first million rows, to two keys files
// in dir, and returns their paths. csvgen's first five fields are never
// quoted.
func sampleKeys(csv, dir string, n int) (single, composite string, err error) {
	f, err := os.Open(csv)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Scan() // the header
	r := rand.New(rand.NewPCG(29, 29))
	var users, pairs []string
	for i := 0; i < 1_000_000 && sc.Scan(); i++ {
		if r.IntN(500) != 0 {
			continue
		}
		fields := strings.SplitN(sc.Text(), ",", 6)
		if len(fields) < 5 {
			continue
		}
		users = append(users, fields[1])
		pairs = append(pairs, fields[1]+","+fields[4])
	}
	if len(users) > n {
		users, pairs = users[:n], pairs[:n]
	}
	single, composite = filepath.Join(dir, "single.txt"), filepath.Join(dir, "composite.txt")
	if err := os.WriteFile(single, []byte(strings.Join(users, "\n")+"\n"), 0o644); err != nil {
		return "", "", err
	}
	return single, composite, os.WriteFile(composite, []byte(strings.Join(pairs, "\n")+"\n"), 0o644)
}

// lines returns the lines of the file at path.
func lines(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	return strings.Fields(string(b))
}

// benchP50 runs csvidx bench, warm, over keys with the index by key spec by
// and returns its p50 in µs.
func benchP50(bin, csv, by, keys string) (float64, error) {
	out, err := run.Output(bin, "bench", csv, keys, "--by", by, "--json")
	if err != nil {
		return 0, err
	}
	var r struct {
		P50 float64 `json:"p50_ns"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return 0, fmt.Errorf("bench output %q: %w", out, err)
	}
	return r.P50 / 1000, nil
}

// report prints the table.
func report(r *results) {
	one := run.MedianOf(r.One)
	fmt.Printf("\n%d rows, 2 threads, %d rounds in turns (each round's seconds; ratios of medians)\n\n", r.Rows, r.Rounds)
	fmt.Printf("| | time | over one build | CPU (user+sys) | CPU over one build |\n| --- | ---: | ---: | ---: | ---: |\n")
	row := func(name string, t, cpu []float64) {
		fmt.Printf("| %s | %s | %.2fx | %s | %.2fx |\n", name, run.Seconds(t), run.MedianOf(t)/one, run.Seconds(cpu), run.MedianOf(cpu)/run.MedianOf(r.OneCPU))
	}
	row("build, one index (user_id)", r.One, r.OneCPU)
	row("build, three indexes in one scan", r.ThreeInOne, r.ThreeInOneCPU)
	row("build, three indexes in three builds", r.ThreeApart, r.ThreeApartCPU)
	fmt.Printf("\n| lookup | user_id | user_id,status | composite / single |\n| --- | ---: | ---: | ---: |\n")
	fmt.Printf("| in process, warm p50 (csvidx bench) | %.2f µs | %.2f µs | %.2fx |\n", r.SingleBenchMicros, r.CompositeBenchMicros, r.CompositeBenchMicros/r.SingleBenchMicros)
	fmt.Printf("| csvidx get, a process (median) | %.2f ms | %.2f ms | %.2fx |\n", r.SingleGetMillis, r.CompositeGetMillis, r.CompositeGetMillis/r.SingleGetMillis)
}
