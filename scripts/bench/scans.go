package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// measureScans times full scans of the file with grep and ripgrep, for the
// ordinary and the heavy key, after checking that they count the rows
// csvidx finds. The pattern ",KEY," is exact for this CSV: user_id is the
// second column and never quoted, and no other column holds ",KEY,"
// (checked by the counts).
func measureScans(c *config, rep *report) error {
	for _, tool := range [][]string{{"grep", "-F", "-c"}, {"rg", "-F", "-c"}} {
		if _, err := exec.LookPath(tool[0]); err != nil {
			rep.skip("ordinary key", strings.Join(tool, " "), "not installed")
			continue
		}
		if v, err := run.Output(tool[0], "--version"); err == nil {
			rep.Versions[tool[0]], _, _ = strings.Cut(v, "\n")
		}
		for _, q := range []struct{ query, key string }{{"ordinary key", c.ordinary}, {"heavy key", c.heavy}} {
			args := append(append([]string{}, tool[1:]...), ","+q.key+",", c.CSV)
			out, err := run.OutputAllowing1(tool[0], args...)
			if err != nil {
				return err
			}
			got, _ := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
			if want := rep.Counts[q.key]; got != want {
				return fmt.Errorf("%s counts %d lines for %s, csvidx %d rows", tool[0], got, q.key, want)
			}
			run.Time(tool[0], args...) // warm the cache
			d, err := run.Median(3, func() (time.Duration, error) { return run.Time(tool[0], args...) })
			if err != nil {
				return err
			}
			rep.add(q.query, strings.Join(tool, " ")+" (full scan, warm)", d.Seconds(), fmt.Sprintf("%d rows, same as csvidx", got))
		}
	}
	return nil
}
