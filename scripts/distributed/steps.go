package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// helloName is the hello-world's measure.
const helloName = "hello-world process"

// results is what the run measured.
type results struct {
	CSV           string            `json:"csv"`
	CSVBytes      int64             `json:"csv_bytes"`
	Rows          int64             `json:"rows"`
	Workers       int               `json:"workers"`
	Partitions    int               `json:"partitions"`
	SplitMiB      int               `json:"split_mib"`
	MemLimitMiB   int               `json:"mem_limit_mib"` // the build's; each reduce task's is this over Workers
	ReduceThreads int               `json:"reduce_threads"`
	Cores         int               `json:"cores"` // the build's threads
	Rounds        int               `json:"rounds"`
	Inputs        map[string]*input `json:"inputs"` // "1×", "4×"
	// Seconds holds each measure's wall time, in rounds: "build 1×",
	// "steps 1×" (the sum of its phases), "steps 1× plan", "... map",
	// "... reduce", "... commit", "... map tasks" (the map tasks' times
	// summed: busy worker time), "... reduce tasks"; for the hello-world,
	// each round's median.
	Seconds map[string][]float64 `json:"seconds"`
	// CPUSeconds is the user and system time of the same measures'
	// processes, summed.
	CPUSeconds   map[string][]float64     `json:"cpu_seconds"`
	HelloSeconds []float64                `json:"hello_seconds"` // every hello-world run
	Steps        map[string]*stepsFigures `json:"steps"`         // by measure: "steps 1×", "steps 4×"
	Builds       map[string]*buildFigures `json:"builds"`        // "build 1×", "build 4×"
	Checks       []key                    `json:"checks"`
	Paper        paperOptions             `json:"paper"`
}

// An input is what a build or the steps index: the CSV, or its four parts.
type input struct {
	Name  string   `json:"name"`
	Glob  string   `json:"glob"` // what build and plan are given: the CSV, or the parts' pattern
	Parts []string `json:"parts"`
	Warm  []string `json:"-"` // the files run.Warm reads before each measure
	Bytes int64    `json:"bytes"`
	Rows  int64    `json:"rows"`
}

// stepsFigures are the steps' tasks and outputs, from the last round (the
// same in every round but for the run's name).
type stepsFigures struct {
	Tasks             int         `json:"tasks"`
	Partitions        int         `json:"partitions"`
	MapTaskSeconds    [][]float64 `json:"map_task_seconds"` // by round, by task
	ReduceTaskSeconds [][]float64 `json:"reduce_task_seconds"`
	RunFiles          int         `json:"run_files"` // the map outputs, before commit removes them
	RunBytes          int64       `json:"run_bytes"`
	Index             indexFiles  `json:"index"`
}

// buildFigures are a one-machine build's outputs.
type buildFigures struct {
	Index indexFiles `json:"index"`
}

// indexFiles are an index's files: an ordinary index (Manifest empty), or
// a manifest and its partitions.
type indexFiles struct {
	Path           string   `json:"path"`
	ManifestBytes  int64    `json:"manifest_bytes,omitempty"`
	Partitions     []string `json:"partitions"`      // the index files' names
	PartitionBytes []int64  `json:"partition_bytes"` // each index file's
	FenceBytes     []int64  `json:"fence_bytes"`     // each one's fence
}

// total returns the bytes of the index files and their fences.
func (x indexFiles) total() int64 {
	var n int64
	for i := range x.PartitionBytes {
		n += x.PartitionBytes[i] + x.FenceBytes[i]
	}
	return n
}

// A key is one user id checked after the measures.
type key struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`    // heavy, ordinary, missing, sampled
	Rows1  int    `json:"rows_1x"` // rows of the one-machine 1× index
	Rows4  int    `json:"rows_4x"` // rows of the steps' 4× manifest
	Passed bool   `json:"passed"`
}

// add records one round of the measure name.
func (r *results) add(name string, sec, cpu float64) {
	r.Seconds[name] = append(r.Seconds[name], sec)
	r.CPUSeconds[name] = append(r.CPUSeconds[name], cpu)
}

// fresh readies a measure: it empties dir, where its outputs go, and reads
// the files warm through.
func fresh(dir string, warm []string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return run.Warm(warm...)
}

// build times the one-machine build of in, its index (or manifest) named
// name in dir.
func (r *results) build(bin string, in *input, dir, name string, o *options) error {
	if err := fresh(dir, in.Warm); err != nil {
		return err
	}
	idx := filepath.Join(dir, name)
	res, err := run.Timed(bin, "build", in.Glob, "--key", "user_id", "--index", idx,
		"--mem-limit-mib", strconv.Itoa(o.memLimitMiB), "-q")
	if err != nil {
		return err
	}
	r.add("build "+in.Name, res.Seconds, res.CPUSeconds)
	files, err := filesOf(idx)
	if err != nil {
		return err
	}
	r.Builds["build "+in.Name] = &buildFigures{Index: files}
	return nil
}

// steps times the four steps over in, their outputs in dir: plan; the
// map tasks and then the reduce tasks, o.workers at a time; commit.
func (r *results) steps(bin string, in *input, dir string, o *options) error {
	if err := fresh(dir, in.Warm); err != nil {
		return err
	}
	name := "steps " + in.Name
	manifest := filepath.Join(dir, "m.idx")
	plan, err := run.Timed(bin, "plan", in.Glob, "--key", "user_id", "--index", manifest,
		"--partitions", strconv.Itoa(o.partitions), "--split-mib", strconv.Itoa(o.splitMiB))
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	var path string
	var tasks, parts int
	if _, err := fmt.Sscan(plan.Stdout, &path, &tasks, &parts); err != nil {
		return fmt.Errorf("plan printed %q: %w", plan.Stdout, err)
	}
	maps, err := pool(bin, tasks, o.workers, func(i int) []string {
		return []string{"map", "--plan", path, "--task", strconv.Itoa(i)}
	})
	if err != nil {
		return fmt.Errorf("map: %w", err)
	}
	f := r.Steps[name]
	if f == nil {
		f = &stepsFigures{}
		r.Steps[name] = f
	}
	f.Tasks, f.Partitions = tasks, parts
	reduces, err := pool(bin, parts, o.workers, func(j int) []string {
		return []string{"reduce", "--plan", path, "--partition", strconv.Itoa(j),
			"--threads", strconv.Itoa(o.reduceThreads), "--mem-limit-mib", strconv.Itoa(o.memLimitMiB / o.workers)}
	})
	if err != nil {
		return fmt.Errorf("reduce: %w", err)
	}
	if f.RunFiles, f.RunBytes, err = runFiles(dir); err != nil { // untimed, before commit removes them
		return err
	}
	commit, err := run.Timed(bin, "commit", "--plan", path, "-q")
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	r.add(name+" plan", plan.Seconds, plan.CPUSeconds)
	r.add(name+" map", maps.wall, maps.cpu)
	r.add(name+" map tasks", sum(maps.tasks), maps.cpu)
	r.add(name+" reduce", reduces.wall, reduces.cpu)
	r.add(name+" reduce tasks", sum(reduces.tasks), reduces.cpu)
	r.add(name+" commit", commit.Seconds, commit.CPUSeconds)
	r.add(name, plan.Seconds+maps.wall+reduces.wall+commit.Seconds, plan.CPUSeconds+maps.cpu+reduces.cpu+commit.CPUSeconds)
	f.MapTaskSeconds = append(f.MapTaskSeconds, maps.tasks)
	f.ReduceTaskSeconds = append(f.ReduceTaskSeconds, reduces.tasks)
	f.Index, err = filesOf(manifest)
	return err
}

// A phase is what pool saw of the tasks of one step.
type phase struct {
	wall  float64   // from the first task's start to the last one's end
	cpu   float64   // the tasks' user and system time
	tasks []float64 // each task's wall time
}

// pool runs n csvidx processes, bin with args(i) for i from 0 to n-1, w at
// a time: w goroutines each take the next i and run its process, as a
// scheduler's w workers would. After a task fails no other one starts;
// pool returns the first failure.
func pool(bin string, n, w int, args func(i int) []string) (phase, error) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	p := phase{tasks: make([]float64, n)}
	var (
		mu     sync.Mutex
		failed error
		wg     sync.WaitGroup
	)
	start := time.Now()
	for range min(w, n) {
		wg.Go(func() {
			for i := range next {
				mu.Lock()
				stop := failed != nil
				mu.Unlock()
				if stop {
					return
				}
				res, err := run.Timed(bin, args(i)...)
				mu.Lock()
				p.tasks[i], p.cpu = res.Seconds, p.cpu+res.CPUSeconds
				if err != nil && failed == nil {
					failed = fmt.Errorf("%s %s: %w", filepath.Base(bin), strings.Join(args(i), " "), err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	p.wall = time.Since(start).Seconds()
	return p, failed
}

// runName is the name of a map task's output for one partition.
var runName = regexp.MustCompile(`\.map-\d+\.p-\d+$`)

// runFiles returns how many map outputs (MANIFEST.RUN.map-I.p-J) dir
// holds, and their bytes.
func runFiles(dir string) (int, int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	var n int
	var bytes int64
	for _, e := range entries {
		if !runName.MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return 0, 0, err
		}
		n, bytes = n+1, bytes+info.Size()
	}
	return n, bytes, nil
}

// filesOf returns the files of the index at path: a manifest and its
// partitions, or an ordinary index and its fence.
func filesOf(path string) (indexFiles, error) {
	x := indexFiles{Path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return x, err
	}
	names := []string{filepath.Base(path)}
	var m struct {
		Format     string   `json:"format"`
		PartsFile  string   `json:"parts_file"`
		Partitions []string `json:"partitions"`
	}
	if json.Unmarshal(data, &m) == nil && m.Format == "csvidx-manifest" {
		table, err := os.Stat(filepath.Join(filepath.Dir(path), m.PartsFile))
		if err != nil {
			return x, err
		}
		x.ManifestBytes, names = int64(len(data))+table.Size(), m.Partitions // the manifest with its parts table
	}
	for _, name := range names {
		p := filepath.Join(filepath.Dir(path), name)
		idx, err := os.Stat(p)
		if err != nil {
			return x, err
		}
		fence, err := os.Stat(p + ".fence")
		if err != nil {
			return x, err
		}
		x.Partitions = append(x.Partitions, name)
		x.PartitionBytes = append(x.PartitionBytes, idx.Size())
		x.FenceBytes = append(x.FenceBytes, fence.Size())
	}
	return x, nil
}

// hello times n hello-world processes in a row, and records their median
// as the round's.
func (r *results) hello(bin string, n int) error {
	var secs []float64
	for range max(1, n) {
		res, err := run.Timed(bin)
		if err != nil {
			return err
		}
		secs = append(secs, res.Seconds)
	}
	r.HelloSeconds = append(r.HelloSeconds, secs...)
	r.add(helloName, run.MedianOf(secs), 0)
	return nil
}

// indexRows returns the rows the index idx of csv holds (csvidx info).
func indexRows(bin, csv, idx string) (int64, error) {
	out, err := run.Output(bin, "info", csv, "--index", idx, "--json")
	if err != nil {
		return 0, err
	}
	var info struct {
		Rows int64 `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		return 0, fmt.Errorf("csvidx info --json printed %q: %w", out, err)
	}
	return info.Rows, nil
}

// check checks the indexes the last round left, for each of keys: the
// steps' 1× manifest prints what the one-machine index of the CSV prints;
// the steps' 4× manifest prints what the one-machine 4× manifest prints,
// four times the 1× rows. It returns the keys with their counts, or the
// first difference, as a failure.
func check(bin, csv string, r *results, keys []key) ([]key, error) {
	get := func(args ...string) (string, error) {
		return run.OutputAllowing1(bin, append([]string{"get"}, args...)...)
	}
	one, steps1 := r.Builds["build 1×"].Index.Path, r.Steps["steps 1×"].Index.Path
	build4, steps4 := r.Builds["build 4×"].Index.Path, r.Steps["steps 4×"].Index.Path
	for i, k := range keys {
		want, err := get(csv, "--index", one, k.ID)
		if err != nil {
			return nil, err
		}
		if (want == "") != (k.Kind == "missing") {
			return nil, fmt.Errorf("FAIL: the one-machine index has %d rows of the %s key %s", strings.Count(want, "\n"), k.Kind, k.ID)
		}
		got, err := get(steps1, k.ID)
		if err != nil {
			return nil, err
		}
		if got != want {
			return nil, fmt.Errorf("FAIL: key %s: the steps' 1× manifest printed %d rows (%d bytes), the one-machine index %d (%d bytes)",
				k.ID, strings.Count(got, "\n"), len(got), strings.Count(want, "\n"), len(want))
		}
		want4, err := get(build4, k.ID)
		if err != nil {
			return nil, err
		}
		got4, err := get(steps4, k.ID)
		if err != nil {
			return nil, err
		}
		keys[i].Rows1, keys[i].Rows4 = strings.Count(want, "\n"), strings.Count(got4, "\n")
		switch {
		case got4 != want4:
			return nil, fmt.Errorf("FAIL: key %s: the steps' 4× manifest printed %d rows (%d bytes), the one-machine 4× manifest %d (%d bytes)",
				k.ID, keys[i].Rows4, len(got4), strings.Count(want4, "\n"), len(want4))
		case keys[i].Rows4 != 4*keys[i].Rows1:
			return nil, fmt.Errorf("FAIL: key %s: %d rows in the 4× input, %d in the 1×", k.ID, keys[i].Rows4, keys[i].Rows1)
		}
		keys[i].Passed = true
	}
	return keys, nil
}

// sampleKeys returns user ids (the second field; csvgen's first five
// fields are never quoted) of rows at five places in the CSV at path, and
// a missing one.
func sampleKeys(path string) ([]key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var keys []key
	buf := make([]byte, 64<<10)
	for k := int64(1); k <= 5; k++ {
		n, err := f.ReadAt(buf, st.Size()*k/6)
		if n == 0 {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		lines := strings.Split(string(buf[:n]), "\n")
		if len(lines) < 3 {
			continue
		}
		if fields := strings.Split(lines[1], ","); len(fields) > 1 {
			keys = append(keys, key{ID: fields[1], Kind: "sampled"})
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no user id sampled from %s", path)
	}
	return append(keys, key{ID: "no-such-user", Kind: "missing"}), nil
}

// fieldsAfter returns the words after label in csvgen's -stats output.
func fieldsAfter(stats, label string) []string {
	for _, line := range strings.Split(stats, "\n") {
		if rest, ok := strings.CutPrefix(line, label); ok {
			return strings.Fields(rest)
		}
	}
	return nil
}

// copyFile copies the file at from to a new file at to.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// sum returns the sum of xs.
func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
