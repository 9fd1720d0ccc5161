package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// csvPart is a prefix of the CSV: its size and the rows per key in it.
type csvPart struct {
	size   int64
	counts map[string]int
}

// checker holds the generated CSV, the snapshots of index states the
// writers start from, and what lookups must answer.
type checker struct {
	bin, dir, csv string
	base, full    csvPart
	keys          []string
	snaps         map[string]map[string][]byte // snapshot name -> index file name -> bytes
}

// prepare generates the CSV into work/live, and snapshots the index
// states: "main" (an index of the first 80% of the rows) and "tail" (that
// index with a tail over the rest).
func prepare(work, bin string, rows int) (*checker, error) {
	c := &checker{bin: bin, dir: filepath.Join(work, "live"), snaps: map[string]map[string][]byte{}}
	c.csv = filepath.Join(c.dir, "orders.csv")
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err
	}
	if err := run.Generate(c.csv, rows, "-multiline", "0"); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(c.csv)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := 0
	for _, l := range lines[:1+rows*8/10] { // the header, then 80% of the rows
		cut += len(l)
	}
	c.base = countKeys(data[:cut])
	c.full = countKeys(data)
	c.keys = sampleKeys(lines, 1+rows*8/10)

	// The old index: built over the first rows alone, in a directory of
	// its own, then put next to the whole CSV (an index names no path).
	baseDir := filepath.Join(work, "base")
	if err := os.MkdirAll(baseDir, 0o755); err != nil {
		return nil, err
	}
	baseCSV := filepath.Join(baseDir, "orders.csv")
	if err := os.WriteFile(baseCSV, data[:cut], 0o644); err != nil {
		return nil, err
	}
	if _, err := run.Output(bin, "build", baseCSV, "--key", "user_id"); err != nil {
		return nil, err
	}
	if c.snaps["main"], err = indexFiles(baseDir); err != nil {
		return nil, err
	}
	if err := c.restore("main"); err != nil {
		return nil, err
	}
	if _, err := run.Output(bin, "update", "--no-compact", c.csv); err != nil {
		return nil, err
	}
	if c.snaps["tail"], err = indexFiles(c.dir); err != nil {
		return nil, err
	}
	if _, ok := c.snaps["tail"]["orders.csv.csvidx.tail"]; !ok {
		return nil, fmt.Errorf("update --no-compact wrote no tail")
	}
	return c, nil
}

// countKeys counts the rows of each user_id (the second field) in data,
// which starts with the header.
func countKeys(data []byte) csvPart {
	p := csvPart{size: int64(len(data)), counts: map[string]int{}}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, l := range lines[1:] {
		f := strings.SplitN(l, ",", 3)
		if len(f) >= 2 {
			p.counts[f[1]]++
		}
	}
	return p
}

// sampleKeys picks keys to count: from the first rows (heavy users
// among them), from rows only the new state covers, and one missing.
func sampleKeys(lines [][]byte, cutLine int) []string {
	seen := map[string]bool{}
	var keys []string
	add := func(l []byte) {
		if f := strings.SplitN(string(l), ",", 3); len(f) >= 2 && !seen[f[1]] {
			seen[f[1]] = true
			keys = append(keys, f[1])
		}
	}
	n := len(lines) - 1 // the last "line" is empty
	for i := 0; i < 15; i++ {
		add(lines[1+i*(cutLine-1)/15])
		add(lines[cutLine+i*(n-cutLine)/15])
	}
	return append(keys, "no-such-user")
}

// indexFiles reads the index files of orders.csv in dir, by name.
func indexFiles(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, suffix := range []string{".csvidx", ".csvidx.tail", ".csvidx.fence"} {
		name := "orders.csv" + suffix
		b, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// restore makes the live directory hold the CSV and exactly the index
// files of a snapshot.
func (c *checker) restore(snap string) error {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != "orders.csv" {
			if err := os.Remove(filepath.Join(c.dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for name, b := range c.snaps[snap] {
		if err := os.WriteFile(filepath.Join(c.dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// tempFiles returns the names of temporary files in the live directory.
func (c *checker) tempFiles() ([]string, error) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
