package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// kill runs the scenario once uninterrupted, to time it, then n times from
// its start state, killed at a random moment, checking the promise after
// each kill.
func (c *checker) kill(sc scenario, n int, r *rand.Rand) (outcome, error) {
	o := outcome{scenario: sc}
	if err := c.restore(sc.Start); err != nil {
		return o, err
	}
	start := time.Now()
	if _, err := run.Output(c.bin, append(sc.Args, c.csv)...); err != nil {
		return o, err
	}
	alone := time.Since(start)
	o.UninterruptedSeconds = alone.Seconds()
	oldCovers := c.base.size
	if sc.Start == "tail" {
		oldCovers = c.full.size
	}

	for i := 0; i < n; i++ {
		if err := c.restore(sc.Start); err != nil {
			return o, err
		}
		cmd := exec.Command(c.bin, append(sc.Args, c.csv)...)
		if err := cmd.Start(); err != nil {
			return o, err
		}
		time.Sleep(time.Duration(r.Float64() * 1.2 * float64(alone)))
		cmd.Process.Kill() // fails harmlessly when it already finished
		cmd.Wait()
		o.Kills++

		problem, old, temps := c.after(sc.Start, oldCovers)
		if problem != "" {
			o.Broken++
			log.Printf("%s, kill %d: %s", sc.Name, i+1, problem)
			continue
		}
		if old {
			o.OldState++
		} else {
			o.NewState++
		}
		if temps {
			o.TempFilesLeft++
		}
	}
	return o, nil
}

// after checks the index after a kill: it covers the old or the new bytes
// with the right counts, verify finds it equal to a fresh build, and the
// next writer brings it to the whole CSV without temporary files. It
// returns what is wrong ("" when nothing), whether the index is still the
// old state, and whether the kill left temporary files.
func (c *checker) after(start string, oldCovers int64) (problem string, old, temps bool) {
	files, err := indexFiles(c.dir)
	if err != nil {
		return err.Error(), false, false
	}
	old = maps.EqualFunc(files, c.snaps[start], bytes.Equal)
	left, err := c.tempFiles()
	if err != nil {
		return err.Error(), old, false
	}
	temps = len(left) > 0

	covers, err := c.covers()
	if err != nil {
		return err.Error(), old, temps
	}
	if covers != oldCovers && covers != c.full.size {
		return fmt.Sprintf("the index covers %d bytes, neither the old %d nor the new %d", covers, oldCovers, c.full.size), old, temps
	}
	if p := c.checkCounts(covers); p != "" {
		return p, old, temps
	}
	if _, err := run.Output(c.bin, "verify", c.csv); err != nil {
		return "verify after the kill: " + err.Error(), old, temps
	}

	if _, err := run.Output(c.bin, "update", c.csv); err != nil {
		return "the next update: " + err.Error(), old, temps
	}
	if left, _ := c.tempFiles(); len(left) > 0 {
		return fmt.Sprintf("%s survived the next writer", strings.Join(left, ", ")), old, temps
	}
	if covers, err := c.covers(); err != nil || covers != c.full.size {
		return fmt.Sprintf("after the next update the index covers %d bytes of %d (%v)", covers, c.full.size, err), old, temps
	}
	if p := c.checkCounts(c.full.size); p != "" {
		return "after the next update: " + p, old, temps
	}
	if _, err := run.Output(c.bin, "verify", c.csv); err != nil {
		return "verify after the next update: " + err.Error(), old, temps
	}
	return "", old, temps
}

// covers returns how many CSV bytes the index covers, from csvidx info.
func (c *checker) covers() (int64, error) {
	out, err := run.Output(c.bin, "info", "--json", c.csv)
	if err != nil {
		return 0, err
	}
	var info struct {
		CSVBytes    int64 `json:"csv_bytes"`
		BytesBehind int64 `json:"bytes_behind"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		return 0, err
	}
	return info.CSVBytes - info.BytesBehind, nil
}

// checkCounts compares csvidx get --count for the sample keys with the
// counts of the CSV prefix the index covers.
func (c *checker) checkCounts(covers int64) string {
	want := c.base.counts
	if covers == c.full.size {
		want = c.full.counts
	}
	out, err := run.OutputAllowing1(c.bin, append([]string{"get", "--count", c.csv}, c.keys...)...)
	if err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		key, count, _ := strings.Cut(line, "\t")
		if got, err := strconv.Atoi(count); err != nil || got != want[key] {
			return fmt.Sprintf("get --count %s = %q over %d bytes, want %d", key, count, covers, want[key])
		}
	}
	return ""
}
