package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

type benchOptions struct {
	rounds  int
	cold    bool
	noFence bool
	asJSON  bool
}

// benchResult is what bench measures, in nanoseconds per lookup.
type benchResult struct {
	Cold        bool    `json:"cold"`
	Fence       bool    `json:"fence"`
	Keys        int     `json:"keys"`
	Lookups     int     `json:"lookups"`
	Rows        int64   `json:"rows"`
	RowsPerKey  float64 `json:"rows_per_key"`
	P50         int64   `json:"p50_ns"`
	P90         int64   `json:"p90_ns"`
	P99         int64   `json:"p99_ns"`
	Max         int64   `json:"max_ns"`
	Mean        int64   `json:"mean_ns"`
	OpenLatency int64   `json:"open_ns"`
	// Pages read per lookup, on a cold cache: of the index files (main and
	// tail), of the fence, and of the CSV.
	IndexPages float64 `json:"index_pages_per_lookup,omitempty"`
	FencePages float64 `json:"fence_pages_per_lookup,omitempty"`
	CSVPages   float64 `json:"csv_pages_per_lookup,omitempty"`
}

func newBenchCommand(g *globals, s streams) *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench FILE KEYSFILE",
		Short: "Measure in-process lookup latency over the keys in KEYSFILE",
		Long: `Bench opens the index of FILE once and looks up every key of KEYSFILE (one
per line) as a program using the index package would: each lookup finds the
key's records, reads every candidate row and compares its key. It prints the
latency percentiles of one lookup.

Warm (the default), a first round fills the cache and --rounds rounds are
timed. With --cold, before every lookup the pages of the CSV and the index
files are dropped from the page cache (posix_fadvise, no privilege needed),
as on a machine that has not read them yet; then a second, untimed round
counts how many pages of each file a lookup read (mincore). --no-fence
searches the index without its fence file, for comparison.`,
		Example: `  csvidx bench orders.csv keys.txt
  csvidx bench orders.csv keys.txt --cold
  csvidx bench orders.csv keys.txt --cold --no-fence --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("bench takes FILE and KEYSFILE, got %d arguments (see csvidx bench --help)", len(args))
			}
			return indexable(cmd, args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.rounds < 1 || o.rounds > maxRounds {
				return fmt.Errorf("--rounds %d: give 1 to %d", o.rounds, maxRounds)
			}
			if args[1] == "-" {
				if err := beforeStdin(args[0]); err != nil {
					return err
				}
			}
			data, err := readKeysFile(args[1], "keys file", s)
			if err != nil {
				return err
			}
			res, err := bench(args[0], &keyInput{file: data}, args[1], g, &o)
			if err != nil {
				return err
			}
			if o.asJSON {
				b, err := json.Marshal(res)
				if err != nil {
					return err
				}
				fmt.Fprintf(s.out, "%s\n", b)
				return nil
			}
			mode := "warm"
			if res.Cold {
				mode = "cold"
			}
			fence := "with the fence"
			if !res.Fence {
				fence = "without a fence"
			}
			fmt.Fprintf(s.out, "%d %s lookups of %d keys %s, %.1f rows per key; open %s\n",
				res.Lookups, mode, res.Keys, fence, res.RowsPerKey, time.Duration(res.OpenLatency))
			fmt.Fprintf(s.out, "p50 %s  p90 %s  p99 %s  max %s  mean %s\n",
				time.Duration(res.P50), time.Duration(res.P90), time.Duration(res.P99), time.Duration(res.Max), time.Duration(res.Mean))
			if res.Cold {
				fmt.Fprintf(s.out, "pages read per lookup: index %.2f, fence %.2f, CSV %.2f\n", res.IndexPages, res.FencePages, res.CSVPages)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.rounds, "rounds", 3, "timed rounds over the keys (warm: after one warm-up round)")
	f.BoolVar(&o.cold, "cold", false, "drop the files from the page cache before every lookup, and count the pages read")
	f.BoolVar(&o.noFence, "no-fence", false, "search the index without its fence file")
	f.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	return cmd
}

// maxRounds is the largest --rounds: bench keeps every latency it measures.
const maxRounds = 10_000

func bench(csvPath string, given *keyInput, keysPath string, g *globals, o *benchOptions) (*benchResult, error) {
	start := time.Now()
	opts := g.options()
	opts.NoFence = o.noFence
	ix, err := index.Open(csvPath, opts)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	_, keys, err := given.keys(ix)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s holds no keys", keysPath)
	}
	res := &benchResult{Cold: o.cold, Fence: ix.HasFence(), Keys: len(keys), OpenLatency: int64(time.Since(start))}
	var rows int64
	visit := func([]byte) error {
		rows++
		return nil
	}
	rounds := o.rounds
	if !o.cold {
		for _, k := range keys { // warm-up: the cache holds what the lookups read
			if err := ix.Lookup(k, visit); err != nil {
				return nil, err
			}
		}
		res.Rows, rows = rows, 0
	} else {
		rounds = 1
	}
	lat := make([]int64, 0, len(keys)*rounds)
	for r := 0; r < rounds; r++ {
		for _, k := range keys {
			if o.cold {
				if err := ix.DropCache(); err != nil {
					return nil, err
				}
			}
			t := time.Now()
			if err := ix.Lookup(k, visit); err != nil {
				return nil, err
			}
			lat = append(lat, int64(time.Since(t)))
		}
	}
	if o.cold {
		res.Rows = rows
		// The pages read are counted in a second, untimed round: counting
		// them (mincore over every mapped page, and a vector as large)
		// made the next lookup 100 µs slower.
		var pages index.Residency
		for _, k := range keys {
			if err := ix.DropCache(); err != nil {
				return nil, err
			}
			if err := ix.Lookup(k, func([]byte) error { return nil }); err != nil {
				return nil, err
			}
			p, err := ix.Resident()
			if err != nil {
				return nil, err
			}
			pages.Index += p.Index
			pages.Fence += p.Fence
			pages.CSV += p.CSV
		}
		n := float64(len(keys))
		res.IndexPages, res.FencePages, res.CSVPages = float64(pages.Index)/n, float64(pages.Fence)/n, float64(pages.CSV)/n
	}
	slices.Sort(lat)
	var sum int64
	for _, d := range lat {
		sum += d
	}
	pct := func(p float64) int64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	res.Lookups = len(lat)
	res.RowsPerKey = float64(res.Rows) / float64(len(keys))
	res.P50, res.P90, res.P99, res.Max = pct(0.50), pct(0.90), pct(0.99), lat[len(lat)-1]
	res.Mean = sum / int64(len(lat))
	return res, nil
}
