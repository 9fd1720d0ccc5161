package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// runCase writes the case's file, builds its index and checks the build
// against the rules in the package comment. plain is the plain file's
// build time, or 0 for the plain file itself, which is built twice and
// not held to a time limit. The error is for the harness failing (a full
// disk, say), not csvidx.
func runCase(c *config, hc hcase, plain float64) (result, error) {
	res := result{ID: hc.ID, Name: hc.Name, MemBound: float64(c.mem + c.overhead)}
	dir := filepath.Join(c.work, "case"+hc.ID)
	spill := filepath.Join(dir, "spill")
	if err := os.MkdirAll(spill, 0o755); err != nil {
		return res, err
	}
	if !c.keep {
		defer os.RemoveAll(dir)
	}
	csv := filepath.Join(dir, "hostile.csv")

	start := time.Now()
	g, err := newGen(csv, hc.Probes)
	if err != nil {
		return res, err
	}
	hc.Write(g, c.size)
	if err := g.close(); err != nil {
		return res, fmt.Errorf("writing case %s: %w", hc.ID, err)
	}
	res.GenSeconds = time.Since(start).Seconds()
	res.Bytes, res.Expect = g.n, g.expect()

	args := []string{"build", csv, "--key", hc.Key, "--mem-limit-mib", strconv.Itoa(c.mem),
		"--tmp-dir", spill, "--threads", strconv.Itoa(c.threads), "--quiet"}
	if hc.NoHeader {
		args = append(args, "--no-header")
	}
	if plain > 0 {
		res.TimeLimit = c.factor*plain + c.slack
	}
	timeout := c.timeout(res.TimeLimit)
	runs := 1
	if plain == 0 {
		runs = 2 // the reference: the faster of two
	}
	for res.Runs < runs {
		p, err := measure(timeout, c.bin, args...)
		if err != nil {
			return res, err
		}
		res.Runs++
		if res.Runs == 1 || p.Seconds < res.Build.Seconds {
			p.PeakAnonMiB = max(p.PeakAnonMiB, res.Build.PeakAnonMiB)
			p.MaxRSSMiB = max(p.MaxRSSMiB, res.Build.MaxRSSMiB)
			res.Build = p
		} else {
			res.Build.PeakAnonMiB = max(p.PeakAnonMiB, res.Build.PeakAnonMiB)
			res.Build.MaxRSSMiB = max(p.MaxRSSMiB, res.Build.MaxRSSMiB)
		}
		if res.Runs == 1 && res.TimeLimit > 0 && p.Seconds > res.TimeLimit && !p.TimedOut {
			runs = 2 // over the limit: once more, in case it was noise
		}
	}
	if plain > 0 {
		res.Ratio = res.Build.Seconds / plain
	}

	p := res.Build
	res.Outcome, res.Problems = classify(p)
	if res.Outcome == cleanError && hc.MustBuild {
		res.Outcome, res.Problems = failed, []string{"must build, but: " + firstLine(p.Stderr)}
	}
	if res.TimeLimit > 0 && p.Seconds > res.TimeLimit {
		res.Problems = append(res.Problems, fmt.Sprintf("build took %.2f s, over the limit of %.2f s (%.1fx the plain build + %.2f s)",
			p.Seconds, res.TimeLimit, c.factor, c.slack))
	}
	if p.PeakAnonMiB > res.MemBound {
		res.Problems = append(res.Problems, fmt.Sprintf("peak anonymous memory %.1f MiB, over the bound of %d + %d MiB",
			p.PeakAnonMiB, c.mem, c.overhead))
	}
	if res.Leftovers = leftovers(spill, csv); res.Leftovers > 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("%d temporary files left", res.Leftovers))
	}
	if res.Outcome == built {
		ck := &checker{bin: c.bin, dir: dir, timeout: timeout, mem: c.mem}
		res.Problems = append(res.Problems, ck.check(csv, res.Expect)...)
	}
	if len(res.Problems) > 0 {
		res.Outcome = failed
	}
	return res, nil
}
