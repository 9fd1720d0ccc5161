package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// paperOptions are the assumptions of the table on paper that are not
// measured (flags).
type paperOptions struct {
	RateMBps float64 `json:"rate_mbps"` // MB/s each worker reads and writes object storage at, in all
	FileGB   float64 `json:"file_gb"`   // GB per file of the input: the manifest's parts
	SplitMiB int     `json:"split_mib"` // the plan's --split-mib: the map tasks
}

// med returns the median of the measure name's rounds.
func (r *results) med(name string) float64 { return run.MedianOf(r.Seconds[name]) }

// perGB returns sec × workers / GB of bytes: the seconds a worker spends
// on a GB when a phase of sec keeps workers busy.
func perGB(sec float64, workers int, bytes int64) float64 {
	return sec * float64(workers) / (float64(bytes) / 1e9)
}

// report prints the tables: the measures, the ratios, the sizes and the
// table on paper.
func report(r *results) {
	one, four := r.Inputs["1×"], r.Inputs["4×"]
	s1, s4 := r.Steps["steps 1×"], r.Steps["steps 4×"]
	how := "hard links to it: the page cache holds its bytes once"
	if len(four.Warm) > 1 {
		how = "copies of it"
	}
	fmt.Printf("\n%s: %d rows, %d bytes (%.3f GB); 4×: %d parts, each the CSV (%s), %d bytes, %d rows\n",
		r.CSV, r.Rows, r.CSVBytes, float64(r.CSVBytes)/1e9, len(four.Parts), how, four.Bytes, four.Rows)
	parts := fmt.Sprintf("%d partitions", r.Partitions)
	if r.Partitions == 0 {
		parts = fmt.Sprintf("partitions as plan chooses (1×: %d; 4×: %d)", s1.Partitions, s4.Partitions)
	}
	fmt.Printf("steps: W = %d workers (tasks at once), %s, --split-mib %d (1×: %d map tasks; 4×: %d), reduce --threads %d --mem-limit-mib %d\n",
		r.Workers, parts, r.SplitMiB, s1.Tasks, s4.Tasks, r.ReduceThreads, r.MemLimitMiB/r.Workers)
	fmt.Printf("build: all %d cores, --mem-limit-mib %d; %d rounds in turns, the outputs removed and the CSV read through before each measure\n",
		r.Cores, r.MemLimitMiB, r.Rounds)
	fmt.Printf("per GB per worker: the phase's wall time × W / the input's GB (1e9 bytes); for a build, × its %d cores\n\n", r.Cores)
	fmt.Println("| measure | runs | median (s) | each round (s) | CPU, median (s) | per GB per worker (s) |")
	fmt.Println("| --- | ---: | ---: | --- | ---: | ---: |")
	row := func(label, name, per string) {
		fmt.Printf("| %s | %d | %.3f | %s | %.3f | %s |\n", label, len(r.Seconds[name]), r.med(name), run.Seconds(r.Seconds[name]),
			run.MedianOf(r.CPUSeconds[name]), per)
	}
	for _, in := range []*input{one, four} {
		b, st := "build "+in.Name, "steps "+in.Name
		f := r.Steps[st]
		row(b+", one machine", b, fmt.Sprintf("%.3f", perGB(r.med(b), r.Cores, in.Bytes)))
		row(st+": plan", st+" plan", "")
		row(fmt.Sprintf("%s: map, %d tasks, %d at a time", st, f.Tasks, r.Workers), st+" map", fmt.Sprintf("%.3f", perGB(r.med(st+" map"), r.Workers, in.Bytes)))
		row(fmt.Sprintf("%s: reduce, %d tasks, %d at a time", st, f.Partitions, r.Workers), st+" reduce", fmt.Sprintf("%.3f", perGB(r.med(st+" reduce"), r.Workers, in.Bytes)))
		row(st+": commit", st+" commit", "")
		row(st+": plan + map + reduce + commit", st, fmt.Sprintf("%.3f", perGB(r.med(st), r.Workers, in.Bytes)))
	}
	ms := make([]string, len(r.Seconds[helloName]))
	for i, sec := range r.Seconds[helloName] {
		ms[i] = fmt.Sprintf("%.2f ms", 1000*sec)
	}
	fmt.Printf("| %s (each round: the median of its runs) | %d | %.4f | %s | | |\n", helloName, len(r.HelloSeconds), run.MedianOf(r.HelloSeconds), strings.Join(ms, " "))
	fmt.Printf("\nchecked, in the last round's indexes: the steps' 1× manifest prints what the one-machine index prints, the steps' 4× manifest what the one-machine 4× manifest prints, 4 times the rows, for")
	for _, k := range r.Checks {
		fmt.Printf(" %s (%s, %d rows)", k.ID, k.Kind, k.Rows1)
	}
	fmt.Println()
	ratios(r)
	sizes(r)
	paper(r)
}

// ratios prints the ratios the issue sets targets for, and where the
// steps' time goes.
func ratios(r *results) {
	paired := func(a, b string) float64 { return run.PairedRatio(r.Seconds[a], r.Seconds[b]) }
	fmt.Println("\n| ratio | value | target |\n| --- | ---: | ---: |")
	fmt.Printf("| steps 1× / build 1×, paired by round | %.3f | ≤ 1.3 (at 5 GB) |\n", paired("steps 1×", "build 1×"))
	fmt.Printf("| steps 4× / build 4×, paired | %.3f | - |\n", paired("steps 4×", "build 4×"))
	for _, m := range []string{" map", " reduce", ""} {
		fmt.Printf("| steps%s 4× / 1×, paired | %.3f | 4 (linear) |\n", m, paired("steps 4×"+m, "steps 1×"+m))
	}
	fmt.Printf("| build 4× / 1×, paired | %.3f | (4) |\n", paired("build 4×", "build 1×"))
	for _, in := range []string{"1×", "4×"} {
		st, f := "steps "+in, r.Steps["steps "+in]
		fmt.Printf("| steps %s CPU / build %s CPU (medians: the steps' extra work) | %.3f | - |\n", in, in,
			run.MedianOf(r.CPUSeconds[st])/run.MedianOf(r.CPUSeconds["build "+in]))
		for _, ph := range []string{"map", "reduce"} {
			var use []float64 // the tasks' summed time over wall time × W: how busy the workers were
			for i, wall := range r.Seconds[st+" "+ph] {
				use = append(use, r.Seconds[st+" "+ph+" tasks"][i]/(wall*float64(r.Workers)))
			}
			fmt.Printf("| steps %s %s: the workers' use, Σ task time / (wall × W), median | %.3f | 1 |\n", in, ph, run.MedianOf(use))
		}
		procs := 2 + ceilDiv(f.Tasks, r.Workers) + ceilDiv(f.Partitions, r.Workers)
		startup := float64(procs) * run.MedianOf(r.HelloSeconds)
		fmt.Printf("| steps %s: process start-ups on its path, (2 + ⌈%d/W⌉ + ⌈%d/W⌉) × hello-world = %.3f s, over its median | %.3f | - |\n",
			in, f.Tasks, f.Partitions, startup, startup/r.med(st))
		fmt.Printf("| steps %s reduce: ns per record per worker (wall × W / records) | %.1f | - |\n", in,
			1e9*r.med(st+" reduce")*float64(r.Workers)/float64(r.Inputs[in].Rows))
	}
}

// sizes prints the bytes of the CSV, the indexes, the manifests and the
// run files.
func sizes(r *results) {
	fmt.Println("\n| file | bytes | bytes per row |\n| --- | ---: | ---: |")
	line := func(label string, bytes, rows int64) {
		fmt.Printf("| %s | %d | %.3f |\n", label, bytes, float64(bytes)/float64(rows))
	}
	line("CSV", r.CSVBytes, r.Rows)
	for _, in := range []*input{r.Inputs["1×"], r.Inputs["4×"]} {
		b, st := r.Builds["build "+in.Name].Index, r.Steps["steps "+in.Name]
		if b.ManifestBytes > 0 {
			line(fmt.Sprintf("build %s: manifest and parts table (%d parts, 1 partition)", in.Name, len(in.Parts)), b.ManifestBytes, in.Rows)
		}
		line(fmt.Sprintf("build %s: index + fence", in.Name), b.total(), in.Rows)
		line(fmt.Sprintf("steps %s: manifest and parts table (%d parts, %d partitions)", in.Name, len(in.Parts), st.Partitions), st.Index.ManifestBytes, in.Rows)
		for j := range st.Index.Partitions {
			line(fmt.Sprintf("steps %s: partition %d, index (+ fence %d)", in.Name, j, st.Index.FenceBytes[j]), st.Index.PartitionBytes[j], in.Rows)
		}
		line(fmt.Sprintf("steps %s: all partitions, index + fence", in.Name), st.Index.total(), in.Rows)
		line(fmt.Sprintf("steps %s: run files, %d (%d tasks × %d partitions), before commit", in.Name, st.RunFiles, st.Tasks, st.Partitions), st.RunBytes, in.Rows)
	}
}

// paper prints the table on paper: 1 TB and 10 TB on 8, 64 and 512
// workers, from the 4× input's figures, with its assumptions.
func paper(r *results) {
	four, s1, s4 := r.Inputs["4×"], r.Steps["steps 1×"], r.Steps["steps 4×"]
	rows4 := float64(four.Rows)
	mapPerGB := perGB(r.med("steps 4× map"), r.Workers, four.Bytes)
	reducePerRecord := r.med("steps 4× reduce") * float64(r.Workers) / rows4
	runPerRow := float64(s4.RunBytes) / rows4
	indexPerRow := float64(s4.Index.total()) / rows4
	rowsPerByte := rows4 / float64(four.Bytes)
	// The manifest with its parts table: a fixed part, one per partition
	// (its name, quoted, and a comma) and an entry per part (the 4×
	// manifest's three more parts than the 1×'s, their partitions told
	// apart).
	var names float64
	for _, n := range s4.Index.Partitions {
		names += float64(len(n) + 3)
	}
	perPartition := names / float64(len(s4.Index.Partitions))
	perPart := (float64(s4.Index.ManifestBytes-s1.Index.ManifestBytes) - perPartition*float64(s4.Partitions-s1.Partitions)) / 3
	base := float64(s1.Index.ManifestBytes) - perPart - perPartition*float64(s1.Partitions)
	planSec, commitSec := r.med("steps 4× plan"), r.med("steps 4× commit")
	rate := r.Paper.RateMBps * 1e6

	fmt.Printf("\nOn paper: 1 TB and 10 TB on N workers, from the 4× input's figures. Assumed:\n")
	fmt.Printf("- a worker is one of the W = %d task slots measured here (%d cores: %.2g each). Its map scans %.3f s per GB (the 4× map phase's wall × W / GB); its reduce takes %.1f ns per record (the 4× reduce phase's wall × W / records);\n",
		r.Workers, r.Cores, float64(r.Cores)/float64(r.Workers), mapPerGB, 1e9*reducePerRecord)
	fmt.Printf("- each worker reads and writes object storage at %.0f MB/s in all (-rate-mbps), alongside its work: a map task takes max(scan, (its share of the input read + its run files written) / rate), a reduce max(merge, (its runs read + its index file written) / rate);\n", r.Paper.RateMBps)
	fmt.Printf("- N partitions, one reduce per worker, the keys spread evenly; each worker's share of the map tasks is the input / N;\n")
	fmt.Printf("- the merge's time per record is constant, as measured at %.0f records per partition with --mem-limit-mib %d: a partition many times its memory spills and merges its runs again, which is not counted;\n",
		rows4/float64(s4.Partitions), r.MemLimitMiB/r.Workers)
	fmt.Printf("- plan and commit as measured on the 4× input, %.3f s and %.3f s, not scaled (plan guesses a record start per task, commit reads a small file per task: %d tasks here); no scheduler overhead, task start-up (%.1f ms a process here) or straggler;\n",
		planSec, commitSec, s4.Tasks, 1000*run.MedianOf(r.HelloSeconds))
	fmt.Printf("- rows of %.1f bytes, run files %.2f bytes and index files (+ fences) %.2f bytes per row, as measured; map tasks of %d MiB (-paper-split-mib), each writing N run files;\n",
		1/rowsPerByte, runPerRow, indexPerRow, r.Paper.SplitMiB)
	fmt.Printf("- files of %g GB (-file-gb): a manifest and its parts table of %.0f bytes + %.0f per file + %.0f per partition (paths as long as here).\n\n",
		r.Paper.FileGB, base, perPart, perPartition)
	fmt.Println("| input | N | input per worker | map: scan, I/O → time | reduce: merge, I/O → time | plan + map + reduce + commit | map tasks; run files (bytes) | each partition: records, bytes | manifest |")
	fmt.Println("| --- | ---: | ---: | --- | --- | ---: | --- | --- | ---: |")
	for _, size := range []float64{1e12, 1e13} {
		rows := rowsPerByte * size
		runs := runPerRow * rows
		tasks := math.Ceil(size / float64(r.Paper.SplitMiB<<20))
		files := math.Ceil(size / (r.Paper.FileGB * 1e9))
		for _, n := range []float64{8, 64, 512} {
			share, records := size/n, rows/n
			scan, mapIO := mapPerGB*share/1e9, (share+runs/n)/rate
			merge, reduceIO := reducePerRecord*records, (runs/n+indexPerRow*records)/rate
			total := planSec + max(scan, mapIO) + max(merge, reduceIO) + commitSec
			manifest := base + perPart*files + perPartition*n
			fmt.Printf("| %s | %.0f | %s | %s, %s → %s | %s, %s → %s | %s | %.0f; %.0f (%s) | %.3g, %s | %s |\n",
				fmtBytes(size), n, fmtBytes(share), fmtSec(scan), fmtSec(mapIO), fmtSec(max(scan, mapIO)),
				fmtSec(merge), fmtSec(reduceIO), fmtSec(max(merge, reduceIO)), fmtSec(total),
				tasks, tasks*n, fmtBytes(runs), records, fmtBytes(indexPerRow*records), fmtBytes(manifest))
		}
	}
}

// ceilDiv returns ⌈a/b⌉.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// fmtBytes formats bytes in decimal units.
func fmtBytes(b float64) string {
	for _, u := range []struct {
		size float64
		name string
	}{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}} {
		if b >= u.size {
			return fmt.Sprintf("%.3g %s", b/u.size, u.name)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}

// fmtSec formats seconds as seconds, minutes or hours.
func fmtSec(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%.3g h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.3g min", s/60)
	}
	return fmt.Sprintf("%.3g s", s)
}
