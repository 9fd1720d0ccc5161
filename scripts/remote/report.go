package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// report prints the medians, the requests and round trips the server saw,
// and the figures the issue sets targets for, with their floors.
func report(r *results) {
	med := func(name string) float64 { return run.MedianOf(r.Seconds[name]) }
	medInt := func(xs []int) float64 {
		fs := make([]float64, len(xs))
		for i, x := range xs {
			fs[i] = float64(x)
		}
		return run.MedianOf(fs)
	}
	delay := r.DelayMS / 1000
	perDelay := func(sec float64) string {
		if delay == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", sec/delay)
	}
	var index []string
	for _, n := range slices.Sorted(maps.Keys(r.IndexBytes)) {
		index = append(index, fmt.Sprintf("%s %d bytes", n, r.IndexBytes[n]))
	}
	fmt.Printf("\n%s: %d rows, %d bytes; %s; the server waits %.0f ms before each answer; key %s (%d lines), a batch of %d keys\n",
		r.CSV, r.Rows, r.CSVBytes, strings.Join(index, ", "), r.DelayMS, r.Key, r.KeyRows, r.Batch)
	fmt.Println("\n| measure | runs | median | requests | round trips (server) | bytes read | time/delay | round trips, target |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, name := range r.Measures {
		t := fmt.Sprintf("%.1f ms", 1000*med(name))
		if med(name) >= 1 {
			t = fmt.Sprintf("%.3f s", med(name))
		}
		reqs, rts, body := "-", "-", "-"
		if xs, ok := r.Requests[name]; ok {
			reqs = fmt.Sprintf("%.0f", medInt(xs))
			if delay > 0 { // with none, round trips cannot be told apart
				rts = fmt.Sprintf("%.0f", medInt(r.RoundTrips[name]))
			}
			bs := make([]float64, len(r.BodyBytes[name]))
			for i, b := range r.BodyBytes[name] {
				bs[i] = float64(b)
			}
			body = human(int64(run.MedianOf(bs)))
		}
		target := r.Targets[name]
		if target == "" {
			target = "-"
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", name, len(r.Seconds[name]), t, reqs, rts, body, perDelay(med(name)), target)
	}

	cold, warm, other := "remote get, cold", "remote get, warm, its pages cached", "remote get, warm, another key"
	batch, localBatch := fmt.Sprintf("remote get --keys-file (%d keys), cold", r.Batch), fmt.Sprintf("local get --keys-file (%d keys)", r.Batch)
	fmt.Println("\n| figure | value | target |\n| --- | ---: | ---: |")
	rt := func(name, target string) {
		if delay == 0 {
			fmt.Printf("| %s: round trips the server saw | - (no delay) | %s |\n", name, target)
			return
		}
		fmt.Printf("| %s: round trips the server saw (median, most) | %.0f, %d | %s |\n", name, medInt(r.RoundTrips[name]), slices.Max(r.RoundTrips[name]), target)
	}
	rt(cold, "3")
	fmt.Printf("| %s: time/delay | %s | 3 + transfer |\n", cold, perDelay(med(cold)))
	rt(warm, "1")
	rt(other, "2")
	rt(batch, "≤ 3, not one per key")
	fmt.Printf("| %s: time/delay | %s | 3 + transfer |\n", batch, perDelay(med(batch)))
	floor := func(local string, trips float64) []float64 {
		out := make([]float64, len(r.Seconds[local]))
		for i, sec := range r.Seconds[local] {
			out[i] = sec + trips*delay
		}
		return out
	}
	for _, f := range []struct {
		name, local string
		trips       float64
	}{{cold, "local get", 3}, {"remote get --no-cache, cold", "local get", 3}, {warm, "local get", 1}, {other, "local get", 2}, {batch, localBatch, 3}} {
		fmt.Printf("| %s / its floor, (%s + %.0f × delay), paired | %.3f | - |\n", f.name, f.local, f.trips, run.PairedRatio(r.Seconds[f.name], floor(f.local, f.trips)))
	}
	fmt.Printf("| remote build / local build, paired | %.3f | ≤ 1.25 |\n", run.PairedRatio(r.Seconds["remote build"], r.Seconds["local build"]))
	fmt.Printf("| remote build, delay 0 / local build, paired | %.3f | - |\n", run.PairedRatio(r.Seconds["remote build, delay 0"], r.Seconds["local build"]))
	together := r.Seconds["local build alongside fetch-only, delay 0"]
	fmt.Printf("| local build alongside fetch-only, delay 0 / local build, paired: the cores the transfer takes | %.3f | - |\n",
		run.PairedRatio(together, r.Seconds["local build"]))
	fmt.Printf("| remote build, delay 0 / its floor, the local build alongside fetch-only (delay 0), paired | %.3f | - |\n",
		run.PairedRatio(r.Seconds["remote build, delay 0"], together))
	withTrips := make([]float64, len(together))
	for i, sec := range together {
		withTrips[i] = sec + 2*delay // the head, then the first blocks
	}
	fmt.Printf("| remote build / its floor, the same + 2 × delay, paired | %.3f | - |\n",
		run.PairedRatio(r.Seconds["remote build"], withTrips))
	fmt.Printf("| the remotely built index's bytes are the local build's | %v | - |\n", r.SameIndex)

	fmt.Println("\nWhere the time of the remote gets went, medians in ms: from the start to the first request, in the server (the waves), between the waves (the client), from the last answer to the exit:")
	fmt.Println("\n| measure | start | waves | between | exit | time |\n| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, name := range r.Measures {
		ps, ok := r.Phases[name]
		if !ok || !strings.HasPrefix(name, "remote get") {
			continue
		}
		var st, wv, bt, ex []float64
		for _, p := range ps {
			st, wv, bt, ex = append(st, p.Startup), append(wv, p.Waves), append(bt, p.Between), append(ex, p.Exit)
		}
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", name, run.MedianOf(st), run.MedianOf(wv), run.MedianOf(bt), run.MedianOf(ex), 1000*med(name))
	}

	fmt.Println("\nThe requests of the first round of each remote measure, in the round trips the server saw:")
	base := filepath.Base(r.CSV)
	for _, name := range r.Measures {
		reqs, ok := r.FirstRound[name]
		if !ok {
			continue
		}
		lines := describe(reqs, base)
		fmt.Printf("%s: %d requests, %d round trips\n", name, len(reqs), len(lines))
		if len(lines) > 8 {
			lines = append(lines[:6], fmt.Sprintf("... %d more", len(lines)-6))
		}
		for _, l := range lines {
			fmt.Println("  " + l)
		}
		if most := r.MostRound[name]; len(waves(most)) > len(waves(reqs)) {
			lines := describe(most, base)
			fmt.Printf("  another round had %d round trips:\n", len(lines))
			for _, l := range lines[:min(len(lines), 8)] {
				fmt.Println("    " + l)
			}
		}
	}
}
