package main

import (
	"path/filepath"
	"strconv"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// growth is how a side's build time grows past memory: builds of the CSV
// and of one with twice its rows, both at a memory limit the records of
// either spill past.
type growth struct {
	LimitMiB int       `json:"limit_mib"`
	Small    []float64 `json:"small_seconds"`
	Large    []float64 `json:"large_seconds"`
}

// ratio returns the median large build's time over the median small one's.
func (g *growth) ratio() float64 {
	small := run.MedianOf(g.Small)
	if small == 0 {
		return 0
	}
	return run.MedianOf(g.Large) / small
}

// timeGrowth times, in turns, each side's builds of small and large at
// limitMiB, 2 threads, spilling into the workspace.
func timeGrowth(s *run.Script, sides []*side, small, large string, limitMiB, rounds int) error {
	csvs := []string{small, large}
	for _, sd := range sides {
		sd.Growth = &growth{LimitMiB: limitMiB}
	}
	return run.Turns(max(1, rounds), len(sides)*len(csvs), func(_, k int) error {
		sd, csv := sides[k/len(csvs)], csvs[k%len(csvs)]
		idx := sd.idx + ".growth"
		if err := run.RemoveIndex(idx); err != nil {
			return err
		}
		if err := run.Warm(csv); err != nil {
			return err
		}
		m, err := run.Timed(sd.Bin, "build", csv, "--key", "user_id", "--index", idx, "--threads", "2",
			"--mem-limit-mib", strconv.Itoa(limitMiB), "--tmp-dir", filepath.Dir(idx), "-q")
		if err != nil {
			return err
		}
		if csv == small {
			sd.Growth.Small = append(sd.Growth.Small, m.Seconds)
		} else {
			sd.Growth.Large = append(sd.Growth.Large, m.Seconds)
		}
		return run.RemoveIndex(idx)
	})
}
