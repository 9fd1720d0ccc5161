package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// report prints the two sides side by side, with format 2's ratio to
// format 1.
func report(sides []*side) {
	a, b := sides[0], sides[1]
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "\t%s\t%s\tformat 2 / format 1\t\n", a.Name, b.Name)
	row := func(name string, x, y float64, unit string) {
		ratio := "-"
		if x > 0 {
			ratio = fmt.Sprintf("%.2fx", y/x)
		}
		fmt.Fprintf(w, "%s\t%.3f %s\t%.3f %s\t%s\t\n", name, x, unit, y, unit, ratio)
	}
	row("index size", float64(a.IndexBytes)/1e6, float64(b.IndexBytes)/1e6, "MB")
	row("bytes per row", a.BytesPerRow, b.BytesPerRow, "B")
	row("build, 2 threads (median)", run.MedianOf(a.Build), run.MedianOf(b.Build), "s")
	if len(a.Compact) > 0 {
		row("compact, cold (median)", run.MedianOf(a.Compact), run.MedianOf(b.Compact), "s")
	}
	row("warm lookup p50", a.Warm.P50Micros, b.Warm.P50Micros, "us")
	row("cold lookup p50", a.Cold.P50Micros, b.Cold.P50Micros, "us")
	row("cold: index pages per lookup", a.Cold.IndexPages, b.Cold.IndexPages, "")
	row("heavy key, cold p50", a.HeavyCold.P50Micros, b.HeavyCold.P50Micros, "us")
	row("heavy key: index pages per lookup", a.HeavyCold.IndexPages, b.HeavyCold.IndexPages, "")
	if a.Growth != nil {
		row(fmt.Sprintf("build at %d MiB (median)", a.Growth.LimitMiB), run.MedianOf(a.Growth.Small), run.MedianOf(b.Growth.Small), "s")
		row("the same, twice the rows", run.MedianOf(a.Growth.Large), run.MedianOf(b.Growth.Large), "s")
		row("growth: twice the rows / once", a.Growth.ratio(), b.Growth.ratio(), "x")
	}
	w.Flush()
	fmt.Printf("\nbuilds (s): %s %s; %s %s\n", a.Name, run.Seconds(a.Build), b.Name, run.Seconds(b.Build))
	if a.Growth != nil {
		fmt.Printf("builds at %d MiB (s): %s %s, twice the rows %s; %s %s, twice the rows %s\n", a.Growth.LimitMiB,
			a.Name, run.Seconds(a.Growth.Small), run.Seconds(a.Growth.Large), b.Name, run.Seconds(b.Growth.Small), run.Seconds(b.Growth.Large))
	}
	if len(a.Compact) > 0 {
		fmt.Printf("compacts (s): %s %s; %s %s\n", a.Name, run.Seconds(a.Compact), b.Name, run.Seconds(b.Compact))
	}
}
