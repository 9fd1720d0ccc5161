package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// result is one line of the table: one file built and checked.
type result struct {
	ID         string   `json:"case"`
	Name       string   `json:"name"`
	Bytes      int64    `json:"csv_bytes"`
	Expect     expect   `json:"expect"`
	GenSeconds float64  `json:"generate_seconds"`
	Build      proc     `json:"build"` // the fastest run; memory the highest of the runs
	Runs       int      `json:"build_runs"`
	Ratio      float64  `json:"ratio_to_plain,omitempty"`
	TimeLimit  float64  `json:"time_limit_seconds,omitempty"`
	MemBound   float64  `json:"mem_bound_mib"`
	Leftovers  int      `json:"temp_files_left"`
	Outcome    string   `json:"outcome"`
	Problems   []string `json:"problems,omitempty"`
}

// report is the whole run, as saved to JSON.
type report struct {
	Date        string   `json:"date"`
	Cores       int      `json:"cores"`
	Size        int64    `json:"size"`
	MemLimitMiB int      `json:"mem_limit_mib"`
	OverheadMiB int      `json:"overhead_mib"`
	Factor      float64  `json:"factor"`
	Slack       float64  `json:"slack_seconds"`
	Threads     int      `json:"threads"`
	Results     []result `json:"results"`
	OK          bool     `json:"ok"`
}

const rowFormat = "%-4s %-20s %9s %11s %8s %7s %17s %10s  %s\n"

func printHeader(r *report) {
	fmt.Printf("csvidx build on hostile CSV files of %d bytes: --mem-limit-mib %d (bound +%d MiB), --threads %d, %d cores; time limit %.1fx plain + %.2f s\n\n",
		r.Size, r.MemLimitMiB, r.OverheadMiB, r.Threads, r.Cores, r.Factor, r.Slack)
	fmt.Printf(rowFormat, "case", "file", "MiB", "records", "build s", "x plain", "anon MiB / limit", "maxrss MiB", "outcome")
}

// printResult prints one line of the table, and the problems under it.
func printResult(r result) {
	ratio := "-"
	if r.Ratio > 0 {
		ratio = fmt.Sprintf("%.2f", r.Ratio)
	}
	outcome := r.Outcome
	if r.Runs > 1 {
		outcome += fmt.Sprintf(" (best of %d)", r.Runs)
	}
	fmt.Printf(rowFormat, r.ID, r.Name, fmt.Sprintf("%.1f", float64(r.Bytes)/(1<<20)), fmt.Sprint(r.Expect.Rows),
		fmt.Sprintf("%.2f", r.Build.Seconds), ratio, fmt.Sprintf("%.1f / %.0f", r.Build.PeakAnonMiB, r.MemBound),
		fmt.Sprintf("%.0f", r.Build.MaxRSSMiB), outcome)
	for _, p := range r.Problems {
		fmt.Printf("     ! %s\n", p)
	}
}

func newReport(size int64, mem, overhead int, factor, slack float64, threads int) *report {
	return &report{Date: time.Now().UTC().Format(time.RFC3339), Cores: runtime.NumCPU(), Size: size,
		MemLimitMiB: mem, OverheadMiB: overhead, Factor: factor, Slack: slack, Threads: threads}
}

// failures lists the cases that failed.
func (r *report) failures() string {
	var ids []string
	for _, res := range r.Results {
		if res.Outcome == failed {
			ids = append(ids, res.ID+" ("+res.Name+")")
		}
	}
	return strings.Join(ids, ", ")
}
