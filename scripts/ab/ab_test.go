package main

import (
	"math"
	"slices"
	"strings"
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
	if !near(m.RatioQ1, 0.96) || !near(m.RatioQ3, 1.06) {
		t.Errorf("ratio quartiles %v and %v, want 0.96 and 1.06", m.RatioQ1, m.RatioQ3)
	}
}

// near reports whether a and b are equal but for rounding.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestQuartiles checks the quartiles, interpolated as R's type 7 does,
// whatever the order of the values.
func TestQuartiles(t *testing.T) {
	for _, c := range []struct {
		xs     []float64
		q1, q3 float64
	}{
		{nil, 0, 0},
		{[]float64{1.5}, 1.5, 1.5},
		{[]float64{2, 1}, 1.25, 1.75},
		{[]float64{5, 1, 4, 2, 3}, 2, 4},
		{[]float64{4, 3, 2, 1}, 1.75, 3.25},
		{[]float64{1, 1, 1, 10, 1, 1, 1, 1, 1}, 1, 1}, // one outlier moves no quartile
	} {
		q1, q3 := quartiles(c.xs)
		if !near(q1, c.q1) || !near(q3, c.q3) {
			t.Errorf("quartiles(%v) = %v, %v; want %v, %v", c.xs, q1, q3, c.q1, c.q3)
		}
	}
	xs := []float64{3, 1, 2}
	quartiles(xs)
	if !slices.Equal(xs, []float64{3, 1, 2}) {
		t.Errorf("quartiles sorted its argument: %v", xs)
	}
}

// TestRatios checks the per-round ratios, over the rounds both have.
func TestRatios(t *testing.T) {
	if got := ratios([]float64{2, 3, 10}, []float64{1, 3}); !slices.Equal(got, []float64{2, 1}) {
		t.Errorf("ratios = %v, want [2 1]", got)
	}
	if got := ratios(nil, []float64{1}); len(got) != 0 {
		t.Errorf("ratios of nothing = %v", got)
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
	r := &results{Bytes: []check{{What: "a", Old: "1", New: "1"}, {What: "b", Old: "2", New: "2"}}}
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
	if (&results{Bytes: []check{{What: "a"}}}).same() {
		t.Error("an empty check: the same")
	}
}

// TestCheckWant checks an exit status that must be the same and Want.
func TestCheckWant(t *testing.T) {
	for _, c := range []struct {
		check
		ok      bool
		verdict string
	}{
		{check{Old: "1", New: "1", Want: "1"}, true, "same"},
		{check{Old: "0", New: "0", Want: "1"}, false, "WRONG"},
		{check{Old: "0", New: "1", Want: "1"}, false, "DIFFERENT"},
		{check{Old: "2", New: "2"}, true, "same"},
	} {
		if c.check.ok() != c.ok || c.check.verdict() != c.verdict {
			t.Errorf("%+v: ok %v, verdict %q; want %v, %q", c.check, c.check.ok(), c.check.verdict(), c.ok, c.verdict)
		}
		if (&results{Bytes: []check{c.check}}).same() != c.ok {
			t.Errorf("%+v: same() is not %v", c.check, c.ok)
		}
	}
}

// TestLineEndAfter checks the cut: just past the first newline at or
// after the byte asked for, with bytes left after it, even across reads.
func TestLineEndAfter(t *testing.T) {
	data := "h\nab\ncd\nef\n"
	for _, c := range []struct {
		at   int64
		want int64 // 0: an error
	}{
		{0, 2}, {1, 2}, {2, 5}, {4, 5}, {5, 8}, {8, 0}, {10, 0}, {11, 0},
	} {
		got, err := lineEndAfter(strings.NewReader(data), int64(len(data)), c.at)
		if c.want == 0 && err == nil || c.want != 0 && (err != nil || got != c.want) {
			t.Errorf("lineEndAfter(%d) = %d, %v; want %d", c.at, got, err, c.want)
		}
	}
	long := strings.Repeat("x", 200<<10) + "\nlast\n"
	if got, err := lineEndAfter(strings.NewReader(long), int64(len(long)), 5); err != nil || got != 200<<10+1 {
		t.Errorf("lineEndAfter past a 200 KiB line = %d, %v; want %d", got, err, 200<<10+1)
	}
}

// TestKeyByteAt checks the key byte verify's check changes: the last of
// the key's, in the first whole line of the window with no quote up to
// it, flipped into neither a delimiter, a quote nor a line end.
func TestKeyByteAt(t *testing.T) {
	head := []byte("order_id,user_id,status\r\n1,2,x\n")
	for _, c := range []struct {
		window string
		want   int // -1: an error
	}{
		{"5,123,a\n6,456,b\n7,789,c\n", 12}, // 456's 6, not the cut line's
		{"d\n\"7\",456,b\n8,12,c\n", 15},    // past a quote before the key
		{"d\n7,,b\n8,12,c\n", 10},           // past an empty key
		{"d\n7,4-,b\n8,12,c\n", 12},         // past a byte that would flip into a comma
		{"d\n8,12,\"a, b\"\r\n", 5},         // a quote after the key is fine
		{"d\n8,12\r\n", 5},                  // the key the last field
		{"d\n8\n9\n", -1},                   // no key field
		{"d\n8,12,c", -1},                   // no whole line
		{"no line end", -1},
	} {
		got, err := keyByteAt(head, []byte(c.window), "user_id")
		if c.want < 0 && err == nil || c.want >= 0 && (err != nil || got != c.want) {
			t.Errorf("keyByteAt(%q) = %d, %v; want %d", c.window, got, err, c.want)
		}
	}
	if _, err := keyByteAt(head, []byte("d\n8,12\n"), "customer"); err == nil {
		t.Error("keyByteAt of a missing column: no error")
	}
	if _, err := keyByteAt([]byte("no header line"), []byte("d\n8,12\n"), "user_id"); err == nil {
		t.Error("keyByteAt with no header line: no error")
	}
}
