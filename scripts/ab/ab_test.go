package main

import (
	"slices"
	"testing"
)

// TestFinish checks a measure's medians, its paired ratio (the median of
// the rounds' new/old, not the ratio of the medians) and its verdict.
func TestFinish(t *testing.T) {
	m := &measure{Old: []float64{1, 2, 4}, New: []float64{1.02, 1.8, 4.4}, Target: 1.03}
	m.finish()
	if m.OldMedian != 2 || m.NewMedian != 1.8 {
		t.Errorf("medians %v and %v, want 2 and 1.8", m.OldMedian, m.NewMedian)
	}
	// ratios by round: 1.02, 0.9, 1.1
	if m.Ratio != 1.02 || m.Verdict != "ok" {
		t.Errorf("ratio %v, verdict %q; want 1.02, ok", m.Ratio, m.Verdict)
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		ratio, target float64
		want          string
	}{
		{1.0, 1.03, "ok"},
		{1.03, 1.03, "ok"},
		{1.031, 1.03, "over"},
		{0.5, 1.05, "ok"},
		{2, 0, ""},
	} {
		if got := verdict(c.ratio, c.target); got != c.want {
			t.Errorf("verdict(%v, %v) = %q, want %q", c.ratio, c.target, got, c.want)
		}
	}
}

func TestDiffering(t *testing.T) {
	a := map[string]string{"x.csvidx": "1", "x.csvidx.fence": "2", "only-a": "3"}
	b := map[string]string{"x.csvidx": "1", "x.csvidx.fence": "9", "only-b": "3"}
	if got, want := differing(a, b), []string{"only-a", "only-b", "x.csvidx.fence"}; !slices.Equal(got, want) {
		t.Errorf("differing = %v, want %v", got, want)
	}
	if got := differing(a, a); len(got) != 0 {
		t.Errorf("differing(a, a) = %v, want none", got)
	}
}

func TestParseBench(t *testing.T) {
	b, err := parseBench(`{"cold":false,"fence":true,"keys":1000,"lookups":20000,"rows":8123,"rows_per_key":8.1,"p50_ns":1520,"p90_ns":2100,"p99_ns":4800,"max_ns":90000,"mean_ns":1700,"open_ns":300000}` + "\n")
	if err != nil || b.P50 != 1520 || b.P99 != 4800 || b.Rows != 8123 {
		t.Errorf("parseBench = %+v, %v", b, err)
	}
	for _, bad := range []string{"", "p50 1.5µs", `{"p90_ns":3}`} {
		if _, err := parseBench(bad); err == nil {
			t.Errorf("parseBench(%q) gave no error", bad)
		}
	}
}

// TestSame checks that a run is the same only when every check matches,
// none is empty, and no binary was unsteady.
func TestSame(t *testing.T) {
	r := &results{Bytes: []check{{"a", "1", "1"}, {"b", "2", "2"}}}
	if !r.same() {
		t.Error("equal checks: not the same")
	}
	r.Bytes[1].New = "3"
	if r.same() {
		t.Error("a check differs: the same")
	}
	r.Bytes[1].New = "2"
	r.Unsteady = []string{"the old binary wrote other bytes"}
	if r.same() {
		t.Error("unsteady: the same")
	}
	if (&results{Bytes: []check{{"a", "", ""}}}).same() {
		t.Error("an empty check: the same")
	}
}
