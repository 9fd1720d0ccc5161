package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/join"
)

// TestJoinBarLine: the bar's line, LEFT a file (a bar, the percentage, its
// bytes of its size, the rows out, the rate, the time left), LEFT a pipe
// (its bytes and rows read), the pass through RIGHT after LEFT (its own
// rate), the end, a LEFT that grew past its size, singulars; and on a
// narrow terminal a narrower bar, then none, then the text cut, never as
// wide as the terminal (its last column would wrap the line).
func TestJoinBarLine(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name       string
		p          join.Progress
		size       int64
		elapsed    time.Duration
		sinceRight time.Duration
		width      int
		want       string
	}{
		{"File", join.Progress{LeftBytes: gib, LeftRows: 9, Rows: 2134020}, 4 * gib, 8 * time.Second, 0, 0,
			"joining [=======                       ]  25% 1.0 GiB of 4.0 GiB, 2,134,020 rows out, 128.0 MiB/s, 24s left"},
		{"Pipe", join.Progress{LeftBytes: 3 << 20, LeftRows: 9921356, Rows: 1}, 0, 2 * time.Second, 0, 0,
			"joining 3.0 MiB, 9,921,356 rows in, 1 row out, 1.5 MiB/s"},
		{"PipeOneRow", join.Progress{LeftBytes: 10, LeftRows: 1}, 0, time.Second, 0, 0,
			"joining 10 bytes, 1 row in, 0 rows out, 10 bytes/s"},
		{"Right", join.Progress{LeftBytes: 4 * gib, Rows: 8412, RightBytes: 25 << 20, RightTotal: 100 << 20}, 4 * gib, time.Hour, time.Second, 0,
			"reading RIGHT [=======                       ]  25% 25.0 MiB of 100.0 MiB, 8,412 rows out, 25.0 MiB/s, 3s left"},
		{"RightOfAPipe", join.Progress{LeftBytes: 4 * gib, Rows: 8412, RightBytes: 100 << 20, RightTotal: 100 << 20}, 0, time.Hour, 2 * time.Second, 0,
			"reading RIGHT [==============================] 100% 100.0 MiB of 100.0 MiB, 8,412 rows out, 50.0 MiB/s"},
		{"Done", join.Progress{LeftBytes: 1000, Rows: 3}, 1000, time.Second, 0, 0,
			"joining [==============================] 100% 1000 bytes of 1000 bytes, 3 rows out, 1000 bytes/s"},
		{"Grown", join.Progress{LeftBytes: 1500, Rows: 3}, 1000, time.Second, 0, 0,
			"joining [==============================] 100% 1000 bytes of 1000 bytes, 3 rows out, 1000 bytes/s"},
		{"Start", join.Progress{}, 1000, 0, 0, 0,
			"joining [                              ]   0% 0 bytes of 1000 bytes, 0 rows out, 0 bytes/s"},
		{"Wide", join.Progress{LeftBytes: gib, Rows: 7}, 4 * gib, 8 * time.Second, 0, 200,
			"joining [=======                       ]  25% 1.0 GiB of 4.0 GiB, 7 rows out, 128.0 MiB/s, 24s left"},
		{"Narrower", join.Progress{LeftBytes: gib, Rows: 7}, 4 * gib, 8 * time.Second, 0, 80,
			"joining [==        ]  25% 1.0 GiB of 4.0 GiB, 7 rows out, 128.0 MiB/s, 24s left"},
		{"NoBar", join.Progress{LeftBytes: gib, Rows: 7}, 4 * gib, 8 * time.Second, 0, 70,
			"joining  25% 1.0 GiB of 4.0 GiB, 7 rows out, 128.0 MiB/s, 24s left"},
		{"Cut", join.Progress{LeftBytes: gib, Rows: 7}, 4 * gib, 8 * time.Second, 0, 40,
			"joining  25% 1.0 GiB of 4.0 GiB, 7 rows"},
		{"PipeCut", join.Progress{LeftBytes: 3 << 20, LeftRows: 9921356, Rows: 1}, 0, 2 * time.Second, 0, 20,
			"joining 3.0 MiB, 9,"},
	} {
		got := joinBarLine(c.p, c.size, c.elapsed, c.sinceRight, c.width)
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if c.width > 0 && len(got) >= c.width {
			t.Errorf("%s: %d columns on a terminal of %d", c.name, len(got), c.width)
		}
	}
}

// TestCounted: thousands apart, and the noun's plural.
func TestCounted(t *testing.T) {
	for n, want := range map[int64]string{0: "0 rows", 1: "1 row", 999: "999 rows", 1000: "1,000 rows", 123456789: "123,456,789 rows", -1234: "-1,234 rows"} {
		if got := counted(n, "row"); got != want {
			t.Errorf("counted(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestJoinBarOff: a join whose standard error is not a terminal (a
// buffer, a file) draws nothing there, even past the bar's delay: its
// standard error is empty, its output the join's.
func TestJoinBarOff(t *testing.T) {
	defer func(d, e time.Duration) { joinBarDelay, joinBarEvery = d, e }(joinBarDelay, joinBarEvery)
	joinBarDelay, joinBarEvery = 0, time.Millisecond
	left, right, want := joinBarFiles(t)
	errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	for _, stderr := range []interface {
		Write([]byte) (int, error)
	}{new(bytes.Buffer), errFile} {
		var stdout bytes.Buffer
		if status := run([]string{"join", left, right, "--key", "k"}, strings.NewReader(""), &stdout, stderr); status != 0 {
			t.Fatalf("join: exit %d", status)
		}
		if stdout.String() != want {
			t.Fatalf("join: %d bytes out, want %d", stdout.Len(), len(want))
		}
	}
	if b, _ := os.ReadFile(errFile.Name()); len(b) > 0 {
		t.Errorf("a file as standard error: %q written there", b)
	}
}

// joinBarFiles writes a LEFT and a RIGHT, indexes RIGHT, and returns
// their paths and what their join writes.
func joinBarFiles(t *testing.T) (left, right, want string) {
	t.Helper()
	dir := t.TempDir()
	var l, r, w strings.Builder
	r.WriteString("k,v\n")
	for i := range 2000 {
		fmt.Fprintf(&r, "k%d,v%d\n", i, i)
	}
	l.WriteString("k\n")
	w.WriteString("k,k,v\n")
	for i := range 50000 {
		k := i % 2500
		fmt.Fprintf(&l, "k%d\n", k)
		if k < 2000 {
			fmt.Fprintf(&w, "k%d,k%d,v%d\n", k, k, k)
		}
	}
	left, right = filepath.Join(dir, "l.csv"), filepath.Join(dir, "r.csv")
	os.WriteFile(left, []byte(l.String()), 0o644)
	os.WriteFile(right, []byte(r.String()), 0o644)
	if status := run([]string{"build", right, "--key", "k", "-q"}, strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer)); status != 0 {
		t.Fatalf("build: exit %d", status)
	}
	return left, right, w.String()
}
