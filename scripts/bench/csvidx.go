package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// measureCsvidx measures the build and the lookups.
func measureCsvidx(c *config, rep *report) error {
	hello, err := run.HelloBinary(c.Work)
	if err != nil {
		return err
	}
	d, err := run.Median(c.runs, func() (time.Duration, error) { return run.Time(hello) })
	if err != nil {
		return err
	}
	rep.add("floor", "Go hello-world process", d.Seconds(), "the start-up of any Go command")

	idx := c.CSV + ".csvidx"
	m, err := run.Measure(c.Bin, "build", c.CSV, "--key", "user_id")
	if err != nil {
		return err
	}
	ist, err := os.Stat(idx)
	if err != nil {
		return err
	}
	rows := c.rowsOrCount(rep)
	rep.add("build", "csvidx build", m.Seconds, fmt.Sprintf("peak anonymous memory %.0f MiB; index %.1f%% of the CSV, %.2f bytes per row",
		float64(m.PeakAnonKiB)/1024, 100*float64(ist.Size())/float64(rep.CSVBytes), float64(ist.Size())/float64(max(1, rows))))

	files := []string{c.CSV, idx, idx + ".fence", idx + ".tail"}
	for _, q := range []struct {
		query string
		args  []string
	}{
		{"ordinary key", []string{c.ordinary}},
		{"heavy key", []string{c.heavy}},
		{"batch", []string{"--keys-file", c.keys}},
	} {
		args := append([]string{"get", c.CSV}, q.args...)
		warm, h, err := run.Alternate(c.runs,
			func() (time.Duration, error) { return run.Time(c.Bin, args...) },
			func() (time.Duration, error) { return run.Time(hello) })
		if err != nil {
			return err
		}
		rep.add(q.query, baseline, warm.Seconds(), fmt.Sprintf("%d rows; %.2fx a Go hello-world run alternately with it (%.2f ms)",
			rowsOf(rep, q.query), warm.Seconds()/h.Seconds(), 1e3*h.Seconds()))
		cold, err := run.Median(c.coldRuns, func() (time.Duration, error) {
			run.DropCache(files...)
			return run.Time(c.Bin, args...)
		})
		if err != nil {
			return err
		}
		rep.add(q.query, "csvidx get (process, cold)", cold.Seconds(), "the CSV and index files dropped from the page cache first")
	}
	return measureInProcess(c, rep)
}

// measureInProcess runs csvidx bench, warm and cold, over the batch keys.
func measureInProcess(c *config, rep *report) error {
	for _, cold := range []bool{false, true} {
		args := []string{"bench", c.CSV, c.keys, "--json", "--rounds", "20"}
		name := "csvidx lookup (in-process, warm, p50)"
		if cold {
			args = append(args, "--cold")
			name = "csvidx lookup (in-process, cold, p50)"
		}
		out, err := run.Output(c.Bin, args...)
		if err != nil {
			return err
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			return err
		}
		b := map[string]float64{}
		for k, v := range raw {
			b[k], _ = v.(float64)
		}
		detail := fmt.Sprintf("p90 %s, p99 %s, %.1f rows per key", human(b["p90_ns"]/1e9), human(b["p99_ns"]/1e9), b["rows_per_key"])
		if cold {
			detail += fmt.Sprintf("; pages read per lookup: index %.2f, fence %.2f, CSV %.2f", b["index_pages_per_lookup"], b["fence_pages_per_lookup"], b["csv_pages_per_lookup"])
		}
		rep.add("ordinary key", name, b["p50_ns"]/1e9, detail)
	}
	return nil
}

// rowsOf returns how many rows the query's keys have.
func rowsOf(rep *report, query string) int64 {
	switch query {
	case "ordinary key":
		return rep.Counts[rep.Keys["ordinary"]]
	case "heavy key":
		return rep.Counts[rep.Keys["heavy"]]
	}
	return rep.Counts[batchKey]
}

// measureUpdate appends 2% more rows to a copy of the CSV and times
// update next to a full rebuild, then compact.
func measureUpdate(c *config, rep *report) error {
	cp := filepath.Join(c.Work, "appended.csv")
	if err := exec.Command("cp", c.CSV, cp).Run(); err != nil {
		return err
	}
	defer os.Remove(cp)
	defer removeIndex(cp)
	if _, err := run.Output(c.Bin, "build", cp, "--key", "user_id"); err != nil {
		return err
	}
	extra := filepath.Join(c.Work, "extra.csv")
	n := max(1, c.rowsOrCount(rep)/50)
	if _, err := run.Output("go", "run", "./scripts/csvgen", "-rows", strconv.FormatInt(n, 10), "-seed", "2", "-o", extra); err != nil {
		return err
	}
	defer os.Remove(extra)
	if err := appendWithoutHeader(cp, extra); err != nil {
		return err
	}
	m, err := run.Measure(c.Bin, "update", cp, "--no-compact")
	if err != nil {
		return err
	}
	rep.add("update", "csvidx update (2% appended)", m.Seconds, fmt.Sprintf("%d rows appended; the main index untouched", n))
	m2, err := run.Measure(c.Bin, "compact", cp)
	if err != nil {
		return err
	}
	rep.add("update", "csvidx compact", m2.Seconds, "merge the tail into the main index")
	m3, err := run.Measure(c.Bin, "build", cp, "--key", "user_id")
	if err != nil {
		return err
	}
	rep.add("update", "csvidx build (full rebuild)", m3.Seconds, fmt.Sprintf("update is %.1f%% of it, compact %.0f%%", 100*m.Seconds/m3.Seconds, 100*m2.Seconds/m3.Seconds))
	return nil
}

// rowsOrCount returns the CSV's row count, as its index says.
func (c *config) rowsOrCount(rep *report) int64 {
	out, err := run.Output(c.Bin, "info", c.CSV, "--json")
	if err != nil {
		return 0
	}
	var info struct {
		Rows int64 `json:"rows"`
	}
	json.Unmarshal([]byte(out), &info)
	return info.Rows
}

// appendWithoutHeader appends the file at src, less its first line, to dst,
// and syncs dst.
func appendWithoutHeader(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	for i, b := range data {
		if b == '\n' {
			data = data[i+1:]
			break
		}
	}
	f, err := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	// Write the whole copy back now: with the kernel writing gigabytes of it
	// back while they were timed, compact took 3.68 s at 100M rows, against
	// 3.03 s on a copy synced first.
	return f.Sync()
}

func removeIndex(csv string) {
	for _, s := range []string{"", ".fence", ".tail", ".lock"} {
		os.Remove(csv + ".csvidx" + s)
	}
}
