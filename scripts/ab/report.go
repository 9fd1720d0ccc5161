package main

import (
	"fmt"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// results is what a run measured, as printed and as saved to JSON.
type results struct {
	Date        string            `json:"date"`
	Cores       int               `json:"cores"`
	GoVersion   string            `json:"go"` // of this script; each binary's is its own
	CSV         string            `json:"csv"`
	CSVBytes    int64             `json:"csv_bytes"`
	KeysFile    string            `json:"keys_file"`
	Keys        map[string]string `json:"keys"` // the ordinary and the heavy key of get
	Old         *side             `json:"old"`
	New         *side             `json:"new"`
	Rounds      int               `json:"rounds"`
	BuildRounds int               `json:"build_rounds"`
	Gets        int               `json:"gets"`
	BenchRounds int               `json:"bench_rounds"`

	Measures     []*measure `json:"measures"`
	FloorSeconds []float64  `json:"floor_seconds"` // a Go hello-world process, in get's turns
	Bytes        []check    `json:"bytes"`
	Unsteady     []string   `json:"unsteady,omitempty"` // a binary that wrote or found other bytes in a later round
	Same         bool       `json:"same"`               // every check the same, and nothing unsteady
}

// A measure is one thing timed of both binaries in turns: Old[i] and
// New[i] ran in the same round, neighbours in time.
type measure struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"` // the table's: s, ms or µs
	Old    []float64 `json:"old_seconds"`
	New    []float64 `json:"new_seconds"`
	Target float64   `json:"target,omitempty"` // the most Ratio may be; 0: none

	OldMedian float64 `json:"old_median_seconds"`
	NewMedian float64 `json:"new_median_seconds"`
	Ratio     float64 `json:"ratio"` // new/old paired: the median of New[i]/Old[i]
	Verdict   string  `json:"verdict"`
}

// add records a time (seconds) of side j: 0 old, 1 new.
func (m *measure) add(j int, seconds float64) {
	if j == 0 {
		m.Old = append(m.Old, seconds)
	} else {
		m.New = append(m.New, seconds)
	}
}

// finish works out the medians, the paired ratio and the verdict.
func (m *measure) finish() {
	m.OldMedian, m.NewMedian = run.MedianOf(m.Old), run.MedianOf(m.New)
	m.Ratio = run.PairedRatio(m.New, m.Old)
	m.Verdict = verdict(m.Ratio, m.Target)
}

// verdict says whether a paired ratio meets its target: "ok" at or under
// it, "over" above it, "" where there is no target.
func verdict(ratio, target float64) string {
	switch {
	case target == 0:
		return ""
	case ratio <= target:
		return "ok"
	}
	return "over"
}

// A check is bytes both binaries made, which must be the same: an index
// file's or an output's SHA-256, or the rows lookups found.
type check struct {
	What string `json:"what"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// same reports whether every check holds the same for both binaries and
// no binary was unsteady.
func (r *results) same() bool {
	for _, c := range r.Bytes {
		if c.Old != c.New || c.Old == "" {
			return false
		}
	}
	return len(r.Unsteady) == 0
}

// scale is how many of the table's unit make a second.
var scale = map[string]float64{"s": 1, "ms": 1e3, "µs": 1e6}

// print writes the table, then each check in full.
func (r *results) print() {
	fmt.Printf("\nold: %s (%s)\nnew: %s (%s)\n", r.Old.Bin, r.Old.From, r.New.Bin, r.New.From)
	fmt.Printf("%s: %d bytes, %d cores; get's keys: ordinary %s, heavy %s; csvidx bench: %s, --rounds %d\n\n",
		r.CSV, r.CSVBytes, r.Cores, r.Keys["ordinary"], r.Keys["heavy"], r.KeysFile, r.BenchRounds)
	fmt.Printf("| measure | old | new | new/old (paired) | target | verdict |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, m := range r.Measures {
		target := "-"
		if m.Target > 0 {
			target = fmt.Sprintf("≤ %.2f", m.Target)
		}
		f := scale[m.Unit]
		fmt.Printf("| %s | %.3f %s | %.3f %s | %.3f | %s | %s |\n", m.Name, m.OldMedian*f, m.Unit, m.NewMedian*f, m.Unit, m.Ratio, target, m.Verdict)
	}
	fmt.Printf("| floor: a Go hello-world process, in get's turns, median of %d | %.3f ms | | | | |\n", len(r.FloorSeconds), 1e3*run.MedianOf(r.FloorSeconds))
	for _, c := range r.Bytes {
		v := "same"
		if c.Old != c.New {
			v = "DIFFERENT"
		}
		fmt.Printf("| %s | %s | %s | | identical | %s |\n", c.What, short(c.Old), short(c.New), v)
	}
	fmt.Println("\nSHA-256, old then new:")
	for _, c := range r.Bytes {
		if len(c.Old) == 64 || len(c.New) == 64 {
			fmt.Printf("  %s\n    %s\n    %s\n", c.What, c.Old, c.New)
		}
	}
	for _, u := range r.Unsteady {
		fmt.Println("UNSTEADY:", u)
	}
}

// short cuts a SHA-256 to its first 12 digits for the table.
func short(s string) string {
	if len(s) == 64 {
		return s[:12]
	}
	return s
}
