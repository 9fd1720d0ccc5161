package main

import (
	"fmt"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// report is a run's results, as printed and as saved to JSON.
type report struct {
	Date      string            `json:"date"`
	Cores     int               `json:"cores"`
	MemTotal  string            `json:"mem_total"`
	GoVersion string            `json:"go"`
	CSV       string            `json:"csv"`
	CSVBytes  int64             `json:"csv_bytes"`
	Rows      int               `json:"rows,omitempty"`
	Keys      map[string]string `json:"keys"`
	Counts    map[string]int64  `json:"counts"` // rows per probe key, as every tool found them
	Results   []result          `json:"results"`
	Versions  map[string]string `json:"versions"`
}

// result is one line of the table: a tool answering a query.
type result struct {
	Query   string  `json:"query"` // "ordinary key", "heavy key", "batch", "build", "update", "floor"
	Tool    string  `json:"tool"`
	Seconds float64 `json:"seconds"`
	Ratio   float64 `json:"ratio,omitempty"` // Seconds over csvidx get's (warm, one process) for the same query
	Detail  string  `json:"detail,omitempty"`
}

// baseline is the tool whose time the other tools' times are divided by.
const baseline = "csvidx get (process, warm)"

// add records a result and prints it at once, so a long run shows progress.
func (r *report) add(query, tool string, seconds float64, detail string) {
	res := result{Query: query, Tool: tool, Seconds: seconds, Detail: detail}
	for _, b := range r.Results {
		if b.Query == query && b.Tool == baseline && b.Seconds > 0 && tool != baseline {
			res.Ratio = seconds / b.Seconds
		}
	}
	r.Results = append(r.Results, res)
	fmt.Printf("%-13s %-40s %12s  %s\n", query, tool, human(seconds), ratioText(res.Ratio)+detail)
}

// skip records a tool that could not run.
func (r *report) skip(query, tool, why string) {
	r.Results = append(r.Results, result{Query: query, Tool: tool, Detail: "skipped: " + why})
	fmt.Printf("%-13s %-40s %12s  skipped: %s\n", query, tool, "-", why)
}

func ratioText(ratio float64) string {
	if ratio == 0 {
		return ""
	}
	return fmt.Sprintf("%.0fx csvidx get; ", ratio)
}

// human writes seconds with a unit fit for the size.
func human(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", s)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", s*1e3)
	default:
		return fmt.Sprintf("%.2f µs", s*1e6)
	}
}

// print writes the whole table again, grouped by query.
func (r *report) print() {
	fmt.Printf("\n%s: %d bytes; keys: ordinary %s (%d rows), heavy %s (%d rows), missing %s; batch %d rows\n\n",
		r.CSV, r.CSVBytes, r.Keys["ordinary"], r.Counts[r.Keys["ordinary"]], r.Keys["heavy"], r.Counts[r.Keys["heavy"]],
		r.Keys["missing"], r.Counts[batchKey])
	fmt.Printf("| query | tool | time | vs csvidx get | detail |\n| --- | --- | --- | --- | --- |\n")
	for _, q := range []string{"floor", "build", "ordinary key", "heavy key", "batch", "update"} {
		for _, res := range r.Results {
			if res.Query != q {
				continue
			}
			t, ratio := "-", ""
			if res.Seconds > 0 {
				t = human(res.Seconds)
			}
			if res.Ratio > 0 {
				ratio = fmt.Sprintf("%.1fx", res.Ratio)
			}
			fmt.Printf("| %s | %s | %s | %s | %s |\n", q, res.Tool, t, ratio, res.Detail)
		}
	}
}

// save writes the report to dir/bench-SIZE-DATE.json.
func (r *report) save(dir string) error {
	name, err := run.SaveResults(dir, "bench", r.CSVBytes, r)
	if err != nil {
		return err
	}
	fmt.Println("\nwrote", name)
	return nil
}
