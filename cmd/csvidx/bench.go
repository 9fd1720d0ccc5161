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
	rounds int
	asJSON bool
}

// benchResult is what bench measures, in nanoseconds per lookup.
type benchResult struct {
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
}

func newBenchCommand(g *globals, s streams) *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench FILE KEYSFILE",
		Short: "Measure in-process lookup latency over the keys in KEYSFILE",
		Long: `Bench opens the index of FILE once and looks up every key of KEYSFILE (one
per line) as a program using the index package would: each lookup finds the
key's records, reads every candidate row and compares its key. It prints the
latency percentiles of one lookup, after a first round that warms the cache.`,
		Example: `  csvidx bench orders.csv keys.txt
  csvidx bench orders.csv keys.txt --rounds 5 --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			keys, err := readKeys(args[1], s.in)
			if err != nil {
				return err
			}
			if len(keys) == 0 {
				return fmt.Errorf("%s holds no keys", args[1])
			}
			res, err := bench(args[0], keys, g, &o)
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
			fmt.Fprintf(s.out, "%d lookups of %d keys, %.1f rows per key; open %s\n", res.Lookups, res.Keys, res.RowsPerKey, time.Duration(res.OpenLatency))
			fmt.Fprintf(s.out, "p50 %s  p90 %s  p99 %s  max %s  mean %s\n",
				time.Duration(res.P50), time.Duration(res.P90), time.Duration(res.P99), time.Duration(res.Max), time.Duration(res.Mean))
			return nil
		},
	}
	cmd.Flags().IntVar(&o.rounds, "rounds", 3, "timed rounds over the keys, after one warm-up round")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print one JSON object")
	return cmd
}

func bench(csvPath string, keys [][]byte, g *globals, o *benchOptions) (*benchResult, error) {
	start := time.Now()
	ix, err := index.Open(csvPath, g.options())
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	open := time.Since(start)
	var rows, bytes int64
	visit := func(row []byte) error {
		rows++
		bytes += int64(len(row))
		return nil
	}
	for _, k := range keys { // warm-up: the cache holds what the lookups read
		if err := ix.Lookup(k, visit); err != nil {
			return nil, err
		}
	}
	warmRows := rows
	lat := make([]int64, 0, len(keys)*o.rounds)
	for r := 0; r < o.rounds; r++ {
		for _, k := range keys {
			t := time.Now()
			if err := ix.Lookup(k, visit); err != nil {
				return nil, err
			}
			lat = append(lat, int64(time.Since(t)))
		}
	}
	slices.Sort(lat)
	var sum int64
	for _, d := range lat {
		sum += d
	}
	pct := func(p float64) int64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	return &benchResult{
		Keys: len(keys), Lookups: len(lat), Rows: warmRows,
		RowsPerKey: float64(warmRows) / float64(len(keys)),
		P50:        pct(0.50), P90: pct(0.90), P99: pct(0.99), Max: lat[len(lat)-1],
		Mean: sum / int64(len(lat)), OpenLatency: int64(open),
	}, nil
}
