package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// toolResult is what the comparison tools print: scripts/duckdb,
// scripts/sqlite_bench.py and scripts/pandas_bench.py.
type toolResult struct {
	Tool          string  `json:"tool"`
	Version       string  `json:"version"`
	ImportSeconds float64 `json:"import_seconds"`
	IndexSeconds  float64 `json:"index_seconds"`
	DBBytes       int64   `json:"db_bytes"`
	PeakRSSMiB    float64 `json:"peak_rss_mib"`
	Queries       []struct {
		Key              string  `json:"key"`
		Count            int64   `json:"count"`
		Seconds          float64 `json:"seconds"`
		ProcessSeconds   float64 `json:"process_seconds"`
		InProcessSeconds float64 `json:"inprocess_seconds"`
	} `json:"queries"`
	Batch *struct {
		Keys             int     `json:"keys"`
		Count            int64   `json:"count"`
		Seconds          float64 `json:"seconds"`
		ProcessSeconds   float64 `json:"process_seconds"`
		InProcessSeconds float64 `json:"inprocess_seconds"`
	} `json:"batch"`
}

// measureTools runs DuckDB, SQLite and pandas on the same keys, checks their
// counts against csvidx's and reports their times.
func measureTools(c *config, rep *report) error {
	probes := filepath.Join(c.Work, "probes.txt")
	if err := os.WriteFile(probes, []byte(c.ordinary+"\n"+c.heavy+"\n"+c.missing+"\n"), 0o644); err != nil {
		return err
	}
	common := []string{"-csv", c.CSV, "-key", "user_id", "-keys", probes, "-batch", c.keys}
	py := []string{"--csv", c.CSV, "--key", "user_id", "--keys", probes, "--batch", c.keys}

	duck := filepath.Join(c.Work, "duckdb-bench")
	build := exec.Command("go", "build", "-o", duck, ".")
	build.Dir = "scripts/duckdb"
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		rep.skip("ordinary key", "DuckDB", "scripts/duckdb does not build: "+err.Error())
	} else if err := runTool(rep, "DuckDB", duck, common...); err != nil {
		return err
	}
	if err := runTool(rep, "SQLite", "python3", append([]string{"scripts/sqlite_bench.py"}, py...)...); err != nil {
		return err
	}
	return runTool(rep, "pandas", "/usr/bin/python3", append([]string{"scripts/pandas_bench.py"}, py...)...)
}

// runTool runs one comparison tool and adds its rows, or a skip.
func runTool(rep *report, name, prog string, args ...string) error {
	cmd := exec.Command(prog, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		why := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(why, '\n'); i >= 0 {
			why = why[i+1:]
		}
		rep.skip("ordinary key", name, fmt.Sprintf("%v: %s", err, why))
		return nil
	}
	var t toolResult
	if err := json.Unmarshal(out, &t); err != nil {
		return fmt.Errorf("%s printed %q: %w", name, out, err)
	}
	rep.Versions[name] = t.Version
	if t.ImportSeconds > 0 {
		rep.add("build", name+" import", t.ImportSeconds, fmt.Sprintf("database %.0f MiB", float64(t.DBBytes)/(1<<20)))
		rep.add("build", name+" CREATE INDEX", t.IndexSeconds, "")
	}
	queries := map[string]string{rep.Keys["ordinary"]: "ordinary key", rep.Keys["heavy"]: "heavy key", rep.Keys["missing"]: "missing key"}
	for _, q := range t.Queries {
		if want := rep.Counts[q.Key]; q.Count != want {
			return fmt.Errorf("%s counts %d rows for %q, csvidx %d", name, q.Count, q.Key, want)
		}
		query := queries[q.Key]
		if query == "missing key" {
			continue
		}
		detail := fmt.Sprintf("%d rows, same as csvidx", q.Count)
		if t.PeakRSSMiB > 0 {
			detail += fmt.Sprintf("; peak memory %.0f MiB", t.PeakRSSMiB)
		}
		switch {
		case q.ProcessSeconds > 0:
			rep.add(query, name+" (one process, indexed)", q.ProcessSeconds, detail)
			rep.add(query, name+" (in-process, indexed)", q.InProcessSeconds, "")
		default:
			rep.add(query, name+" (full scan)", q.Seconds, detail)
		}
	}
	if b := t.Batch; b != nil {
		if want := rep.Counts[batchKey]; b.Count != want {
			return fmt.Errorf("%s counts %d rows for the batch, csvidx %d", name, b.Count, want)
		}
		detail := fmt.Sprintf("%d keys, %d rows, same as csvidx", b.Keys, b.Count)
		if b.ProcessSeconds > 0 {
			rep.add("batch", name+" (one process, indexed)", b.ProcessSeconds, detail)
			rep.add("batch", name+" (in-process, indexed)", b.InProcessSeconds, "")
		} else {
			rep.add("batch", name+" (full scan)", b.Seconds, detail)
		}
	}
	return nil
}
