package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// killModel is a CSV of rows "i,uK" that the test appends to and knows.
type killModel struct {
	path string
	ends []int64
	keys []int
	size int64
}

func (m *killModel) add(t *testing.T, n int, partial bool) {
	var b strings.Builder
	if last := len(m.ends) - 1; last >= 0 && m.ends[last] < 0 { // complete the row left open
		b.WriteString("\n")
		m.size++
		m.ends[last] = m.size
	}
	for range n {
		i := len(m.keys)
		line := fmt.Sprintf("%d,u%d\n", i, i*7919%211)
		b.WriteString(line)
		m.size += int64(len(line))
		m.ends = append(m.ends, m.size)
		m.keys = append(m.keys, i*7919%211)
	}
	data := b.String()
	if partial { // leave the last row without its newline; the next add completes it
		data = data[:len(data)-1]
		m.size--
		m.ends[len(m.ends)-1] = -1
	}
	f, err := os.OpenFile(m.path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

// count returns how many complete rows within the first size bytes have
// key uk.
func (m *killModel) count(k int, size int64) int {
	n := 0
	for i, end := range m.ends {
		if end > 0 && end <= size && m.keys[i] == k {
			n++
		}
	}
	return n
}

// TestKillWriters kills build, update and compact with SIGKILL at random
// moments. After each kill the index must answer every key with exactly the
// rows of the part of the CSV it covers (the old state or the new one), and
// after the next update, verify must pass and no temporary file may be left.
func TestKillWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes for a few seconds")
	}
	bin, err := exec.LookPath("csvidx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := &killModel{path: filepath.Join(dir, "k.csv")}
	os.WriteFile(m.path, []byte("id,user\n"), 0o644)
	m.size = int64(len("id,user\n"))
	m.add(t, 150000, false)
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	if out, err := run("build", m.path, "--key", "user"); err != nil {
		t.Fatal(out)
	}
	r := rand.New(rand.NewPCG(51, 51))
	ops := [][]string{
		{"update", m.path, "--no-compact"},
		{"update", m.path},
		{"compact", m.path},
		{"build", m.path, "--key", "user", "--mem-limit-mib", "1"},
	}
	kills := 0
	prevCovered := m.size // what the index covered before the writer started
	for round := 0; round < 120; round++ {
		m.add(t, 2000+r.IntN(20000), r.IntN(4) == 0)
		cmd := exec.Command(bin, ops[r.IntN(len(ops))]...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.IntN(15000)) * time.Microsecond)
		if cmd.Process.Kill() == nil {
			kills++
		}
		cmd.Wait()

		// Whatever state the kill left, answers match what the index covers.
		out, err := run("info", m.path, "--json")
		covered, ok := coveredBytes(out)
		if err != nil || !ok {
			t.Fatalf("round %d: info after a kill: %s", round, out)
		}
		if covered < prevCovered {
			t.Fatalf("round %d: the index covers %d bytes, less than the %d it covered before the writer was killed", round, covered, prevCovered)
		}
		prevCovered = covered
		keys := []string{"--count"}
		for k := 0; k < 211; k += 17 {
			keys = append(keys, "u"+strconv.Itoa(k))
		}
		out, err = run(append([]string{"get", m.path}, keys...)...)
		if err != nil {
			t.Fatalf("round %d: get after a kill: %s", round, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var k, n int
			if _, err := fmt.Sscanf(line, "u%d\t%d", &k, &n); err != nil {
				continue // the warning about bytes not indexed
			}
			if want := m.count(k, covered); n != want {
				t.Fatalf("round %d: u%d has %d rows over %d indexed bytes, want %d", round, k, n, covered, want)
			}
		}
	}
	// The next writer finishes the job and cleans up.
	if out, err := run("update", m.path, "--no-compact"); err != nil {
		t.Fatal(out)
	}
	if out, err := run("verify", m.path); err != nil {
		t.Fatalf("verify after the kills: %s", out)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("a temporary file survived the next run: %s", e.Name())
		}
	}
	t.Logf("%d writers killed with SIGKILL, 0 broken states", kills)
}

// TestKillWritersSeveral kills build, update and compact of a file of three
// indexes (user, id, and the composite key user,id) with SIGKILL at random
// moments. The indexes move one by one: after each kill, every index must
// answer with exactly the rows of the part of the CSV it covers, which may
// differ from index to index but never shrinks; after the next update,
// verify must pass for each.
func TestKillWritersSeveral(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes for a few seconds")
	}
	bin, err := exec.LookPath("csvidx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := &killModel{path: filepath.Join(dir, "k.csv")}
	os.WriteFile(m.path, []byte("id,user\n"), 0o644)
	m.size = int64(len("id,user\n"))
	m.add(t, 100000, false)
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	build := []string{"build", m.path, "--key", "user", "--key", "id", "--key", "user,id"}
	if out, err := run(build...); err != nil {
		t.Fatal(out)
	}
	r := rand.New(rand.NewPCG(52, 52))
	ops := [][]string{
		{"update", m.path, "--no-compact"},
		{"update", m.path},
		{"compact", m.path},
		append(build, "--mem-limit-mib", "3"),
	}
	bys := []string{"user", "id", "user,id"}
	prev := map[string]int64{}
	kills := 0
	for round := 0; round < 60; round++ {
		m.add(t, 2000+r.IntN(20000), r.IntN(4) == 0)
		cmd := exec.Command(bin, ops[r.IntN(len(ops))]...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.IntN(30000)) * time.Microsecond)
		if cmd.Process.Kill() == nil {
			kills++
		}
		cmd.Wait()
		for _, by := range bys {
			out, err := run("info", m.path, "--by", by, "--json")
			covered, ok := coveredBytes(out)
			if err != nil || !ok {
				t.Fatalf("round %d: info --by %s after a kill: %s", round, by, out)
			}
			if covered < prev[by] {
				t.Fatalf("round %d: the index by %s covers %d bytes, less than the %d it covered before", round, by, covered, prev[by])
			}
			prev[by] = covered
			args := []string{"get", m.path, "--by", by, "--count"}
			for i := r.IntN(50); i < len(m.keys); i += 1 + r.IntN(len(m.keys)/8) {
				switch by {
				case "user":
					args = append(args, "u"+strconv.Itoa(m.keys[i]))
				case "id":
					args = append(args, strconv.Itoa(i))
				default:
					args = append(args, "u"+strconv.Itoa(m.keys[i])+","+strconv.Itoa(i))
				}
			}
			out, err = run(args...)
			if err != nil && !strings.Contains(out, "\t") {
				t.Fatalf("round %d: get --by %s after a kill: %s", round, by, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				key, n, ok := strings.Cut(line, "\t")
				if !ok {
					continue // the warning about bytes not indexed
				}
				if got, want := n, strconv.Itoa(m.countBy(by, key, covered)); got != want {
					t.Fatalf("round %d: by %s, %s has %s rows over %d indexed bytes, want %s", round, by, key, got, covered, want)
				}
			}
		}
	}
	if out, err := run("update", m.path, "--no-compact"); err != nil {
		t.Fatal(out)
	}
	if out, err := run("verify", m.path); err != nil || strings.Count(out, "ok: ") != 3 {
		t.Fatalf("verify after the kills: %s", out)
	}
	t.Logf("%d writers of three indexes killed with SIGKILL, 0 broken states", kills)
}

// coveredBytes returns the CSV bytes an index covers, its tail's when it
// has one, from info --json of one index; false if it is stale or the
// output is not such a description.
func coveredBytes(out string) (int64, bool) {
	var info struct {
		Scanned int64 `json:"scanned_bytes"`
		Stale   string
		Tail    *struct {
			Scanned int64 `json:"scanned_bytes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.Stale != "" {
		return 0, false
	}
	if info.Tail != nil {
		return info.Tail.Scanned, true
	}
	return info.Scanned, true
}

// countBy returns how many complete rows within the first size bytes have
// key under the index by by (user, id or user,id).
func (m *killModel) countBy(by, key string, size int64) int {
	n := 0
	for i, end := range m.ends {
		if end <= 0 || end > size {
			continue
		}
		user, id := "u"+strconv.Itoa(m.keys[i]), strconv.Itoa(i)
		if by == "user" && key == user || by == "id" && key == id || by == "user,id" && key == user+","+id {
			n++
		}
	}
	return n
}
