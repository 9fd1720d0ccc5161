// Command formats measures index format 2 against format 1 in one run: the
// index sizes, builds, cold compactions and lookups of the same CSV by a
// csvidx that writes format 2 (-bin) and one that writes format 1 (-old, or
// built from -old-rev), in turns (see run.Turns). With -growth-csv, a CSV of
// twice the rows, it also times builds of both CSVs at -growth-mib, where
// both spill: how build time grows past memory. It prints a table and
// writes the figures as JSON (run.SaveResults).
//
//	go run ./scripts/formats -rows 100000000 -rounds 4
//	go run ./scripts/formats -csv big.csv -growth-csv twice.csv -rounds 4
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// formatOneRev is the last commit whose csvidx writes format 1.
const formatOneRev = "10a46e9"

// A side is one of the two binaries and what was measured of it.
type side struct {
	Name        string    `json:"name"`
	Bin         string    `json:"bin"`
	IndexBytes  int64     `json:"index_bytes"`
	BytesPerRow float64   `json:"bytes_per_row"`
	Build       []float64 `json:"build_seconds"`
	Compact     []float64 `json:"compact_cold_seconds,omitempty"`
	Warm        lookup    `json:"warm"`
	Cold        lookup    `json:"cold"`
	HeavyCold   lookup    `json:"heavy_cold"`
	Growth      *growth   `json:"growth,omitempty"`

	idx string
}

// lookup is what csvidx bench --json reports that the table shows.
type lookup struct {
	P50Micros    float64 `json:"p50_us"`
	IndexPages   float64 `json:"index_pages_per_lookup,omitempty"`
	RowsPerQuery float64 `json:"rows_per_key,omitempty"`
}

func main() {
	s := run.NewScript("formats")
	s.CSVFlags(20_000_000, "an orders CSV to measure (generated when empty)")
	s.WorkFlag("directory for the generated files and indexes, kept")
	old := flag.String("old", "", "a csvidx that writes format 1 (built from -old-rev when empty)")
	oldRev := flag.String("old-rev", formatOneRev, "the commit -old is built from")
	rounds := flag.Int("rounds", 4, "timed builds of each format, in turns")
	compact := flag.Bool("compact", true, "time a cold compact of a tail of a tenth of the rows (copies the CSV)")
	growthCSV := flag.String("growth-csv", "", "a CSV of twice -csv's rows: time builds of both at -growth-mib")
	growthMiB := flag.Int("growth-mib", 256, "the memory limit of the -growth-csv builds")
	keysFlag := flag.String("keys", "", "ordinary keys to look up, one per line (when empty, those csvgen writes to the workspace's keys.txt with the CSV)")
	flag.Parse()
	remove, err := s.Workspace("csvidx-formats")
	if err != nil {
		log.Fatal(err)
	}
	defer remove()
	if err := s.GenerateCSV("-unix-ts", "-keys-out", filepath.Join(s.Work, "keys.txt")); err != nil {
		log.Fatal(err)
	}
	if *old == "" {
		if *old, err = run.BinaryAt(*oldRev, s.Work); err != nil {
			log.Fatal(err)
		}
	}
	keys := *keysFlag
	if keys == "" {
		keys = filepath.Join(s.Work, "keys.txt")
	}
	heavy := filepath.Join(s.Work, "heavy.txt")
	if err := os.WriteFile(heavy, []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	sides := []*side{{Name: "format 1", Bin: *old}, {Name: "format 2", Bin: s.Bin}}
	for _, sd := range sides {
		sd.idx = filepath.Join(s.Work, fmt.Sprintf("f%s.csvidx", sd.Name[len(sd.Name)-1:]))
	}
	err = run.Turns(*rounds, len(sides), func(_, i int) error {
		sd := sides[i]
		if err := run.RemoveIndex(sd.idx); err != nil {
			return err
		}
		if err := run.Warm(s.CSV); err != nil {
			return err
		}
		m, err := run.Timed(sd.Bin, "build", s.CSV, "--key", "user_id", "--index", sd.idx, "--threads", "2", "-q")
		if err != nil {
			return err
		}
		sd.Build = append(sd.Build, m.Seconds)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, sd := range sides {
		var info struct {
			IndexBytes int64 `json:"index_bytes"`
			Rows       int64 `json:"rows"`
		}
		out, err := run.Output(sd.Bin, "info", s.CSV, "--index", sd.idx, "--json")
		if err != nil {
			log.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			log.Fatal(err)
		}
		sd.IndexBytes, sd.BytesPerRow = info.IndexBytes, float64(info.IndexBytes)/float64(info.Rows)
		if sd.Warm, err = bench(sd, s.CSV, keys); err != nil {
			log.Fatal(err)
		}
		if sd.Cold, err = bench(sd, s.CSV, keys, "--cold"); err != nil {
			log.Fatal(err)
		}
		if sd.HeavyCold, err = bench(sd, s.CSV, heavy, "--cold"); err != nil {
			log.Fatal(err)
		}
	}
	if *compact {
		if err := timeCompacts(s, sides, *rounds/2); err != nil {
			log.Fatal(err)
		}
	}
	if *growthCSV != "" {
		if err := timeGrowth(s, sides, s.CSV, *growthCSV, *growthMiB, *rounds/2); err != nil {
			log.Fatal(err)
		}
	}
	report(sides)
	st, _ := os.Stat(s.CSV)
	name, err := run.SaveResults(s.Results, "formats", st.Size(), map[string]any{"csv": s.CSV, "rounds": *rounds, "sides": sides})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("\nwrote", name)
}

// bench runs csvidx bench on sd's index and returns what the table shows.
func bench(sd *side, csv, keys string, extra ...string) (lookup, error) {
	args := append([]string{"bench", csv, keys, "--index", sd.idx, "--json"}, extra...)
	out, err := run.Output(sd.Bin, args...)
	if err != nil {
		return lookup{}, err
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return lookup{}, fmt.Errorf("bench output %q: %w", out, err)
	}
	return lookup{P50Micros: num(r, "p50_ns") / 1000, IndexPages: num(r, "index_pages_per_lookup"), RowsPerQuery: num(r, "rows_per_key")}, nil
}

// num returns the number r has under key, or 0.
func num(r map[string]any, key string) float64 {
	switch v := r[key].(type) {
	case float64:
		return v
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return 0
}
