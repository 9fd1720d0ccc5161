package main

import (
	"fmt"
	"slices"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// results is what a run measured, as printed and as saved to JSON.
type results struct {
	Date         string            `json:"date"`
	Cores        int               `json:"cores"`
	GoVersion    string            `json:"go"` // of this script; each binary's is its own
	CSV          string            `json:"csv"`
	CSVBytes     int64             `json:"csv_bytes"`
	KeysFile     string            `json:"keys_file"`
	Keys         map[string]string `json:"keys"` // the ordinary and the heavy key of get
	Old          *side             `json:"old"`
	New          *side             `json:"new"`
	Rounds       int               `json:"rounds"`
	BuildRounds  int               `json:"build_rounds"`
	Gets         int               `json:"gets"`
	BenchRounds  int               `json:"bench_rounds"`
	AppendRounds int               `json:"append_rounds"`
	PrefixBytes  int64             `json:"prefix_bytes"` // the CSV's first bytes each round of the appends builds on, before the rest is appended
	ChangedByte  int64             `json:"changed_byte"` // the offset of the key byte changed for the last verify
	AA           bool              `json:"aa"`           // A/A: the new binary is a copy of the old one

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
	Ratio     float64 `json:"ratio"`    // new/old paired: the median of New[i]/Old[i]
	RatioQ1   float64 `json:"ratio_q1"` // the first quartile of New[i]/Old[i]
	RatioQ3   float64 `json:"ratio_q3"` // the third quartile
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

// finish works out the medians, the paired ratio, its spread and the
// verdict.
func (m *measure) finish() {
	m.OldMedian, m.NewMedian = run.MedianOf(m.Old), run.MedianOf(m.New)
	m.Ratio = run.PairedRatio(m.New, m.Old)
	m.RatioQ1, m.RatioQ3 = quartiles(ratios(m.New, m.Old))
	m.Verdict = verdict(m.Ratio, m.Target)
}

// ratios returns a[i]/b[i] over the rounds both have: the per-round ratios
// whose median is run.PairedRatio.
func ratios(a, b []float64) []float64 {
	rs := make([]float64, min(len(a), len(b)))
	for i := range rs {
		rs[i] = a[i] / b[i]
	}
	return rs
}

// quartiles returns the first and third quartiles of xs, interpolated
// between the nearest values (as R's type 7 and numpy's default: the
// median of an even count is the mean of the middle two, as in
// run.MedianOf), or 0 and 0 of none. Between them lies the middle half of
// xs: their difference is the interquartile range.
func quartiles(xs []float64) (q1, q3 float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(q float64) float64 {
		pos := q * float64(len(s)-1)
		i := int(pos)
		if i+1 >= len(s) {
			return s[i]
		}
		return s[i] + (pos-float64(i))*(s[i+1]-s[i])
	}
	return at(0.25), at(0.75)
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
// file's or an output's SHA-256, the rows lookups found, or an exit status,
// which must also be Want.
type check struct {
	What    string `json:"what"`
	Old     string `json:"old"`
	New     string `json:"new"`
	Want    string `json:"want,omitempty"`     // what both must be, where it is known
	OldText string `json:"old_text,omitempty"` // an output whose SHA-256 Old is, printed in full
	NewText string `json:"new_text,omitempty"`
}

// ok reports whether both binaries made the same, and what they must
// where that is known.
func (c check) ok() bool {
	return c.Old == c.New && c.Old != "" && (c.Want == "" || c.Old == c.Want)
}

// verdict is the table's word for the check.
func (c check) verdict() string {
	switch {
	case c.Old != c.New:
		return "DIFFERENT"
	case !c.ok():
		return "WRONG"
	}
	return "same"
}

// same reports whether every check holds the same for both binaries (and
// what it must) and no binary was unsteady.
func (r *results) same() bool {
	for _, c := range r.Bytes {
		if !c.ok() {
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
	fmt.Printf("%s: %d bytes, %d cores; get's keys: ordinary %s, heavy %s; csvidx bench: %s, --rounds %d\n",
		r.CSV, r.CSVBytes, r.Cores, r.Keys["ordinary"], r.Keys["heavy"], r.KeysFile, r.BenchRounds)
	fmt.Printf("appends: each round builds on the first %d bytes, then appends the other %d; verify of a changed key byte at %d\n\n",
		r.PrefixBytes, r.CSVBytes-r.PrefixBytes, r.ChangedByte)
	fmt.Printf("| measure | old | new | new/old, paired (interquartile range) | target | verdict |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, m := range r.Measures {
		target := "-"
		if m.Target > 0 {
			target = fmt.Sprintf("≤ %.2f", m.Target)
		}
		f := scale[m.Unit]
		fmt.Printf("| %s | %.3f %s | %.3f %s | %.3f (%.2f–%.2f) | %s | %s |\n", m.Name, m.OldMedian*f, m.Unit, m.NewMedian*f, m.Unit, m.Ratio, m.RatioQ1, m.RatioQ3, target, m.Verdict)
	}
	fmt.Printf("| floor: a Go hello-world process, in get's turns, median of %d | %.3f ms | | | | |\n", len(r.FloorSeconds), 1e3*run.MedianOf(r.FloorSeconds))
	for _, c := range r.Bytes {
		target := "identical"
		if c.Want != "" {
			target += ", " + c.Want
		}
		fmt.Printf("| %s | %s | %s | | %s | %s |\n", c.What, short(c.Old), short(c.New), target, c.verdict())
	}
	if r.AA {
		fmt.Println("\nA/A: both sides ran the old binary (new is a copy of it under another name): every ratio above is this machine's noise, not a change.")
	}
	fmt.Println("\nSHA-256, old then new:")
	for _, c := range r.Bytes {
		if len(c.Old) == 64 || len(c.New) == 64 {
			fmt.Printf("  %s\n    %s\n    %s\n", c.What, c.Old, c.New)
		}
	}
	for _, c := range r.Bytes {
		if c.OldText == "" && c.NewText == "" {
			continue
		}
		if c.OldText == c.NewText {
			fmt.Printf("\n%s, both binaries:\n%s", c.What, c.OldText)
		} else {
			fmt.Printf("\n%s, old binary:\n%s\n%s, new binary:\n%s", c.What, c.OldText, c.What, c.NewText)
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
