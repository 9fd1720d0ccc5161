package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// runCLI runs csvgen in-process and returns its exit status, stdout and stderr.
func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestCLIStdoutEqualsFile(t *testing.T) {
	code, stdout, stderr := runCLI("-rows", "500", "-seed", "9", "-multiline", "0.1")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "o.csv")
	if code, _, stderr := runCLI("-rows", "500", "-seed", "9", "-multiline", "0.1", "-o", path); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != stdout {
		t.Fatalf("-o wrote something else than stdout (err %v)", err)
	}
}

func TestCLIBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-rows", "-1"},
		{"-heavy-frac", "1.5"},
		{"-multiline", "NaN"},
		{"-rows-per-user", "0"},
		{"-rows-per-user", "1e-300"},
		{"-keys-n", "-3"},
		{"-nosuchflag"},
		{"extra"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and a message", args, code, stdout, stderr)
		}
	}
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "o.csv")
	if code, _, stderr := runCLI("-o", missing); code != 1 || !strings.Contains(stderr, "csvgen: ") {
		t.Errorf("-o into a missing directory: exit %d, stderr %q; want exit 1", code, stderr)
	}
}

// statsLine returns the value of "name: value" in -stats output.
func statsLine(t *testing.T, stats, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `: (.*)$`).FindStringSubmatch(stats)
	if m == nil {
		t.Fatalf("-stats has no %q line:\n%s", name, stats)
	}
	return m[1]
}

func TestCLIStatsAndKeys(t *testing.T) {
	const rows = 3*chunkRows + 5
	dir := t.TempDir()
	path, keysPath := filepath.Join(dir, "o.csv"), filepath.Join(dir, "keys")
	code, _, stats := runCLI("-rows", strconv.Itoa(rows), "-o", path, "-stats",
		"-keys-out", keysPath, "-keys-n", "300", "-threads", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stats)
	}
	csvData, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := statsLine(t, stats, "rows"); got != strconv.Itoa(rows) {
		t.Errorf("stats rows %s, want %d", got, rows)
	}
	if got := statsLine(t, stats, "bytes"); got != strconv.Itoa(len(csvData)) {
		t.Errorf("stats bytes %s, file has %d", got, len(csvData))
	}
	counts := map[string]int{} // rows per user id
	for _, r := range parse(t, csvData)[1:] {
		counts[r[1]]++
	}
	for _, id := range strings.Fields(statsLine(t, stats, "heavy ids present")) {
		if n, _ := strconv.Atoi(id); n < 1 || n > 1000 || counts[id] == 0 {
			t.Errorf("heavy id %s: %d rows", id, counts[id])
		}
	}
	for _, id := range strings.Fields(statsLine(t, stats, "ordinary ids present")) {
		if n, _ := strconv.Atoi(id); n <= 1000 || counts[id] == 0 {
			t.Errorf("ordinary id %s: %d rows", id, counts[id])
		}
	}
	if id := statsLine(t, stats, "missing id"); counts[id] != 0 {
		t.Errorf("missing id %s has %d rows", id, counts[id])
	}

	keys, err := os.ReadFile(keysPath)
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Fields(string(keys))
	if len(ids) != 300 {
		t.Errorf("-keys-n 300 wrote %d keys", len(ids))
	}
	seen := map[string]bool{}
	for _, k := range ids {
		if n, _ := strconv.Atoi(k); n <= 1000 || counts[k] == 0 || seen[k] {
			t.Errorf("key %s: %d rows, repeated %v; want a new ordinary id that occurs", k, counts[k], seen[k])
		}
		seen[k] = true
	}

	keys2Path := filepath.Join(dir, "keys2")
	if code, _, stderr := runCLI("-rows", strconv.Itoa(rows), "-o", path,
		"-keys-out", keys2Path, "-keys-n", "300", "-threads", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if keys2, _ := os.ReadFile(keys2Path); !bytes.Equal(keys2, keys) {
		t.Error("-keys-out depends on -threads")
	}
}

func TestKeysWhenFewOccur(t *testing.T) {
	// 50 rows with no heavy users make at most 6 ordinary ids: -keys-n 1000 gets them all.
	path := filepath.Join(t.TempDir(), "keys")
	code, stdout, stderr := runCLI("-rows", "50", "-heavy-users", "0", "-keys-out", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string]bool{}
	for _, r := range parse(t, []byte(stdout))[1:] {
		want[r[1]] = true
	}
	data, _ := os.ReadFile(path)
	got := strings.Fields(string(data))
	slices.Sort(got)
	if len(got) != len(want) || slices.ContainsFunc(got, func(k string) bool { return !want[k] }) {
		t.Errorf("keys %q, want each of the %d user ids once", got, len(want))
	}
}

// TestSampleIsUpToDate regenerates testdata/orders.csv with the command in the package doc.
func TestSampleIsUpToDate(t *testing.T) {
	doc, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`go run \./scripts/csvgen (.*) -o testdata/orders\.csv\n`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("main.go does not say how testdata/orders.csv is made")
	}
	want, err := os.ReadFile("../../testdata/orders.csv")
	if err != nil {
		t.Fatal(err)
	}
	code, got, stderr := runCLI(strings.Fields(string(m[1]))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got != string(want) {
		t.Errorf("testdata/orders.csv is not what `go run ./scripts/csvgen %s` writes; regenerate it", m[1])
	}
}
