// Command fence_check measures lookups with and without the fence file, on
// a warm and a cold page cache, in one process (csvidx bench) and as one
// csvidx get process per key, and prints a table; JSON goes to results/tmp/.
// Then it measures the floors the machine sets: random pages of the CSV
// read from storage (one, then a key's rows at once) for the cold lookups,
// and random reads of memory (one after another, then a key's rows at once)
// for the warm ones.
//
// Usage:
//
//	go run ./scripts/fence_check -csv orders.csv -keys keys.txt
//	go run ./scripts/fence_check -rows 10000000
//
// The cache is dropped with posix_fadvise(DONTNEED) on the CSV and the
// index files, which needs no privilege. "Without the fence" moves the
// fence file aside for the separate processes and passes --no-fence to
// bench; the answers are the same either way.
package main

import (
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

	"github.com/csvidx/csvidx/scripts/internal/run"
)

type row struct {
	Mode       string  `json:"mode"` // in-process or processes
	Cache      string  `json:"cache"`
	Fence      bool    `json:"fence"`
	P50Micros  float64 `json:"p50_us"`
	P90Micros  float64 `json:"p90_us"`
	IndexPages float64 `json:"index_pages_per_lookup,omitempty"`
	FencePages float64 `json:"fence_pages_per_lookup,omitempty"`
	CSVPages   float64 `json:"csv_pages_per_lookup,omitempty"`
	RowsPerKey float64 `json:"rows_per_key,omitempty"`
	Lookups    int     `json:"lookups"`
}

func main() {
	s := run.NewScript("fence_check")
	s.CSVFlags(1_000_000, "an orders CSV (generated when empty); its index is built if missing")
	keysPath := flag.String("keys", "", "keys, one per line (generated with the CSV)")
	n := flag.Int("n", 200, "keys to look up in each measurement")
	flag.Parse()

	remove, err := s.Workspace("csvidx-fence")
	check(err)
	defer remove()
	if s.CSV == "" {
		*keysPath = filepath.Join(s.Work, "keys.txt")
		check(s.GenerateCSV("-keys-out", *keysPath, "-keys-n", "1000"))
	}
	csv, bin, work := s.CSV, s.Bin, s.Work
	idx := csv + ".csvidx"
	if _, err := os.Stat(idx); err != nil {
		check(exec.Command(bin, "build", csv, "--key", "user_id").Run())
	}
	data, err := os.ReadFile(*keysPath)
	check(err)
	keys := strings.Fields(string(data))
	keys = keys[:min(*n, len(keys))]
	sample := filepath.Join(work, "sample.txt")
	check(os.WriteFile(sample, []byte(strings.Join(keys, "\n")+"\n"), 0o644))

	var table []row
	for _, cold := range []bool{false, true} {
		for _, fence := range []bool{true, false} {
			table = append(table, inProcess(bin, csv, sample, cold, fence))
		}
	}
	fencePath := idx + ".fence"
	for _, cold := range []bool{false, true} {
		for _, fence := range []bool{true, false} {
			if !fence {
				check(os.Rename(fencePath, fencePath+".aside"))
			}
			table = append(table, processes(bin, csv, keys, cold, fence, []string{csv, idx, fencePath}))
			if !fence {
				check(os.Rename(fencePath+".aside", fencePath))
			}
		}
	}

	st, err := os.Stat(csv)
	check(err)
	fmt.Printf("%s: %d bytes, %d keys, %d cores\n\n", csv, st.Size(), len(keys), runtime.NumCPU())
	fmt.Printf("%-11s %-5s %-8s %10s %10s %12s %12s %10s\n", "lookups", "cache", "fence", "p50", "p90", "index pages", "fence pages", "CSV pages")
	for _, r := range table {
		fence := "without"
		if r.Fence {
			fence = "with"
		}
		pages := func(v float64) string {
			if r.Cache == "warm" || r.Mode == "processes" {
				return "-"
			}
			return fmt.Sprintf("%.2f", v)
		}
		fmt.Printf("%-11s %-5s %-8s %9.1fµs %9.1fµs %12s %12s %10s\n", r.Mode, r.Cache, fence, r.P50Micros, r.P90Micros,
			pages(r.IndexPages), pages(r.FencePages), pages(r.CSVPages))
	}
	floor := storageTable(csv, table)
	mem := memoryTable(table, min(st.Size(), 2<<30))
	name, err := run.SaveResults(s.Results, "fence", st.Size(), map[string]any{"csv_bytes": st.Size(), "cores": runtime.NumCPU(), "keys": len(keys), "rows": table, "storage": floor, "memory": mem})
	check(err)
	fmt.Println("\nwrote", name)
}

// storageTable measures the storage under csv and prints the floor it sets
// for the cold in-process lookups of table: their fence and index pages read
// one after the other, then their rows together. It returns nil where the
// file system refuses direct reads.
func storageTable(csv string, table []row) *storageFloor {
	i := slices.IndexFunc(table, func(r row) bool { return r.Mode == "in-process" && r.Cache == "cold" && r.Fence })
	if i < 0 {
		return nil
	}
	cold := table[i]
	batch := max(1, int(cold.CSVPages+0.5))
	f, err := measureStorage(csv, 400, batch)
	if err != nil {
		fmt.Printf("\nstorage: not measured (%v)\n", err)
		return nil
	}
	trips := cold.FencePages + cold.IndexPages
	floor := trips*f.ReadMicros + f.BatchMicros
	fmt.Printf("\nstorage, random 4 KiB pages of the CSV read through a mapping: one p50 %.1fµs; %d asked for at once p50 %.1fµs\n", f.ReadMicros, f.Batch, f.BatchMicros)
	fmt.Printf("floor of a cold lookup with the fence: %.2f page reads one after the other + its %d rows together = %.1fµs (measured p50 %.1fµs)\n",
		trips, batch, floor, cold.P50Micros)
	return &f
}

// memoryTable measures random reads of size bytes of memory (the CSV's
// size, up to 2 GiB) and prints the floor they
// set for the warm in-process lookups of table: three probes one after the
// other (the fence's two, the index page's one; the misses inside a page
// come on top), then the rows together. It returns nil if memory cannot be
// had.
func memoryTable(table []row, size int64) *memoryFloor {
	i := slices.IndexFunc(table, func(r row) bool { return r.Mode == "in-process" && r.Cache == "warm" && r.Fence })
	if i < 0 {
		return nil
	}
	warm := table[i]
	batch := max(1, int(warm.RowsPerKey+0.5))
	m, err := measureMemory(size, batch, 3)
	if err != nil {
		fmt.Printf("\nmemory: not measured (%v)\n", err)
		return nil
	}
	fmt.Printf("memory, random reads of %d MiB of 4 KiB pages: one after another %.0f ns each; %d together %.0f ns\n", size>>20, m.DependentNanos, m.Batch, m.BatchNanos)
	fmt.Printf("floor of a warm lookup: 3 reads one after the other + its %d rows together = %.2fµs (measured p50 %.2fµs)\n",
		batch, m.PerLookupMicros, warm.P50Micros)
	return &m
}

// inProcess runs csvidx bench.
func inProcess(bin, csv, keys string, cold, fence bool) row {
	args := []string{"bench", csv, keys, "--json", "--rounds", "5"}
	if cold {
		args = append(args, "--cold")
	}
	if !fence {
		args = append(args, "--no-fence")
	}
	out, err := exec.Command(bin, args...).Output()
	check(err)
	var raw map[string]any
	check(json.Unmarshal(out, &raw))
	return row{Mode: "in-process", Cache: cacheName(cold), Fence: fence,
		Lookups: int(num(raw["lookups"])), RowsPerKey: num(raw["rows_per_key"]),
		P50Micros: num(raw["p50_ns"]) / 1000, P90Micros: num(raw["p90_ns"]) / 1000,
		IndexPages: num(raw["index_pages_per_lookup"]), FencePages: num(raw["fence_pages_per_lookup"]), CSVPages: num(raw["csv_pages_per_lookup"])}
}

// processes times one csvidx get process per key.
func processes(bin, csv string, keys []string, cold, fence bool, files []string) row {
	var lat []time.Duration
	for i, k := range keys {
		if cold {
			run.DropCache(files...)
		} else if i == 0 { // warm the cache
			exec.Command(bin, "get", csv, k).Run()
		}
		cmd := exec.Command(bin, "get", csv, k)
		cmd.Stdout = io.Discard
		t := time.Now()
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				log.Fatal(err)
			}
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	us := func(d time.Duration) float64 { return float64(d) / 1000 }
	return row{Mode: "processes", Cache: cacheName(cold), Fence: fence, Lookups: len(lat),
		P50Micros: us(lat[len(lat)/2]), P90Micros: us(lat[len(lat)*9/10])}
}

func cacheName(cold bool) string {
	if cold {
		return "cold"
	}
	return "warm"
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
