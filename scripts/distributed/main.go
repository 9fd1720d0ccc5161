// Command distributed measures the build of one index by the four steps
// of docs/distributed.md, plan, map, reduce and commit, each task a csvidx
// process, against the one-machine build of the same input (issue 42), in
// one run, in turns. It generates an orders CSV (scripts/csvgen, -rows
// rows; or takes -csv) and a 4× input, four parts that are the same file
// (hard links in the workspace, copies where a link cannot be made): the
// steps' input grows fourfold, while the page cache holds one copy of its
// bytes, so that the 4× measures scale the work and not the reads. Round
// by round, each measure after the one before (never two at once), it
// times:
//
//   - csvidx build CSV --key user_id --index X (one machine, all cores,
//     --mem-limit-mib M), an ordinary index;
//   - the steps over the CSV, with -workers W: csvidx plan (--partitions
//     P, plan's own choice when 0, --split-mib N), then the T map tasks, W processes at a time (a
//     pool of goroutines in this program, each running csvidx map --task
//     I for the next I), then the P reduce tasks, W at a time (each with
//     --threads cores/W and --mem-limit-mib M/W: the build's memory, over
//     the machine), then csvidx commit. Each phase is timed from its first
//     process's start to its last one's end; the steps' time is the sum of
//     the four;
//   - csvidx build of the 4 parts' glob (a manifest, one machine), and the
//     steps over the same glob;
//   - -hellos Go hello-world processes in a row (run.HelloBinary): the
//     start-up every task pays, since each is a process.
//
// Before each timed measure its old outputs (index, manifest, plan, run
// files) are removed and the CSV is read through (run.Warm), untimed.
// After the reduces and before the commit, untimed, the map outputs (the
// run files, MANIFEST.RUN.map-I.p-J) are counted and their bytes summed;
// after the commit the manifest's and each partition's bytes are read.
//
// It then checks the indexes of the last round: for a few keys (heavy and
// ordinary user ids, and a missing one, from csvgen -stats; sampled from
// the CSV when -csv is given), csvidx get MANIFEST KEY of the steps' 1×
// manifest prints what csvidx get CSV --index X KEY prints; the steps' 4×
// manifest prints what the one-machine 4× manifest prints, and counts 4
// times the 1× rows. Any difference fails the run.
//
// It prints a markdown table of the medians and each round's times, with
// each map and reduce phase's cost per GB per worker: the phase's wall
// time × W / the input's GB (1e9 bytes), the seconds a worker spends on a
// GB when the phase keeps every worker busy (the pool's use says how busy:
// the tasks' summed times over wall time × W); the ratios the issue sets
// targets for (steps over build, paired by round: run.PairedRatio; 4× over
// 1× of map, reduce and the whole, for linearity); the sizes (CSV,
// manifest, each partition, the run files); and a table on paper for 1 TB
// and 10 TB on 8, 64 and 512 workers from the 4× figures, with its
// assumptions printed beside it. It writes the figures as JSON
// (run.SaveResults, kind "distributed").
//
//	go run ./scripts/distributed -rows 100000000 -rounds 4   # the 5 GB
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// options are the run's own flags.
type options struct {
	workers, partitions, splitMiB int
	memLimitMiB, reduceThreads    int
	rounds, hellos                int
	paper                         paperOptions
}

func main() {
	s := run.NewScript("distributed")
	s.CSVFlags(10_000_000, "an orders CSV to measure (generated when empty; about 53 bytes a row, 10M rows 530 MB)")
	s.WorkFlag("the directory to work in (a temporary one when empty)")
	var o options
	flag.IntVar(&o.workers, "workers", 2, "tasks at once (W): map and reduce processes running side by side")
	flag.IntVar(&o.partitions, "partitions", 0, "partitions of the steps' index, reduce tasks (0: as plan chooses, one per GiB of the input)")
	flag.IntVar(&o.splitMiB, "split-mib", 64, "about how many MiB a map task reads (plan --split-mib)")
	flag.IntVar(&o.memLimitMiB, "mem-limit-mib", 1024, "memory of the build's records; each reduce task gets this over -workers")
	flag.IntVar(&o.reduceThreads, "reduce-threads", 0, "--threads of each reduce task (0: the cores over -workers, at least 1)")
	flag.IntVar(&o.rounds, "rounds", 4, "rounds of every measure, in turns")
	flag.IntVar(&o.hellos, "hellos", 21, "hello-world processes per round")
	flag.Float64Var(&o.paper.RateMBps, "rate-mbps", 200, "paper table: MB/s each worker reads and writes object storage at")
	flag.Float64Var(&o.paper.FileGB, "file-gb", 1, "paper table: GB per file of the input, for the manifest's parts")
	flag.IntVar(&o.paper.SplitMiB, "paper-split-mib", 256, "paper table: --split-mib of the plan, for the tasks and run files")
	flag.Parse()
	if o.reduceThreads == 0 {
		o.reduceThreads = max(1, runtime.NumCPU()/o.workers)
	}
	if o.workers < 1 || o.partitions < 0 || o.splitMiB < 1 || o.memLimitMiB < o.workers {
		log.Fatal("-workers and -split-mib must be 1 or more, -partitions 0 or more, -mem-limit-mib at least -workers")
	}
	remove, err := s.Workspace("csvidx-distributed-")
	if err != nil {
		log.Fatal(err)
	}
	defer remove()
	r, err := measure(s, &o)
	if err != nil {
		remove()
		log.Fatal(err)
	}
	report(r)
	name, err := run.SaveResults(s.Results, "distributed", r.CSVBytes, r)
	if err != nil {
		remove()
		log.Fatal(err)
	}
	fmt.Println("wrote", name)
}

// measure readies the inputs and the hello-world, takes every measure in
// turns, and checks the last round's indexes.
func measure(s *run.Script, o *options) (*results, error) {
	keys, err := readyCSV(s)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(s.CSV)
	if err != nil {
		return nil, err
	}
	hello, err := run.HelloBinary(s.Work)
	if err != nil {
		return nil, err
	}
	one := &input{Name: "1×", Glob: s.CSV, Parts: []string{s.CSV}, Warm: []string{s.CSV}, Bytes: st.Size()}
	four, err := fourParts(s.CSV, filepath.Join(s.Work, "x4"))
	if err != nil {
		return nil, err
	}
	r := &results{CSV: s.CSV, CSVBytes: st.Size(), Workers: o.workers, Partitions: o.partitions, SplitMiB: o.splitMiB,
		MemLimitMiB: o.memLimitMiB, ReduceThreads: o.reduceThreads, Cores: runtime.NumCPU(), Rounds: o.rounds,
		Inputs: map[string]*input{one.Name: one, four.Name: four}, Seconds: map[string][]float64{}, CPUSeconds: map[string][]float64{},
		Steps: map[string]*stepsFigures{}, Builds: map[string]*buildFigures{}, Paper: o.paper}
	dirs := map[string]string{} // each measure's outputs, alone in a directory of their own
	for name, dir := range map[string]string{"build 1×": "build1", "steps 1×": "steps1", "build 4×": "build4", "steps 4×": "steps4"} {
		dirs[name] = filepath.Join(s.Work, dir)
	}
	type job struct {
		name string
		fn   func() error
	}
	jobs := []job{
		{"build 1×", func() error { return r.build(s.Bin, one, dirs["build 1×"], "one.csvidx", o) }},
		{"steps 1×", func() error { return r.steps(s.Bin, one, dirs["steps 1×"], o) }},
		{"build 4×", func() error { return r.build(s.Bin, four, dirs["build 4×"], "m.idx", o) }},
		{"steps 4×", func() error { return r.steps(s.Bin, four, dirs["steps 4×"], o) }},
		{helloName, func() error { return r.hello(hello, o.hellos) }},
	}
	err = run.Turns(o.rounds, len(jobs), func(round, i int) error {
		if err := jobs[i].fn(); err != nil {
			return fmt.Errorf("round %d, %s: %w", round+1, jobs[i].name, err)
		}
		sec := r.Seconds[jobs[i].name]
		fmt.Printf("round %d of %d, %s: %.3f s\n", round+1, o.rounds, jobs[i].name, sec[len(sec)-1])
		return nil
	})
	if err != nil {
		return nil, err
	}
	if r.Rows, err = indexRows(s.Bin, s.CSV, r.Builds["build 1×"].Index.Path); err != nil {
		return nil, err
	}
	one.Rows, four.Rows = r.Rows, 4*r.Rows
	r.Checks, err = check(s.Bin, s.CSV, r, keys)
	return r, err
}

// readyCSV generates the CSV where -csv was not given, with csvgen
// -stats, and returns the keys to check: two heavy user ids, three
// ordinary ones and a missing one; for a CSV given with -csv, user ids
// sampled from it.
func readyCSV(s *run.Script) ([]key, error) {
	if s.CSV != "" {
		return sampleKeys(s.CSV)
	}
	s.CSV = filepath.Join(s.Work, "orders.csv")
	stats, err := run.GenerateStats(s.CSV, s.Rows)
	if err != nil {
		return nil, err
	}
	var keys []key
	for _, kind := range []struct {
		label, name string
		n           int
	}{{"heavy ids present:", "heavy", 2}, {"ordinary ids present:", "ordinary", 3}, {"missing id:", "missing", 1}} {
		ids := fieldsAfter(stats, kind.label)
		if len(ids) < kind.n {
			return nil, fmt.Errorf("csvgen -stats gave %d %s ids, want %d:\n%s", len(ids), kind.name, kind.n, stats)
		}
		for _, id := range ids[:kind.n] {
			keys = append(keys, key{ID: id, Kind: kind.name})
		}
	}
	return keys, nil
}

// fourParts makes the 4× input in dir: four parts, part-1.csv to
// part-4.csv, each the CSV at path, hard links where the file system
// allows it, else copies.
func fourParts(path, dir string) (*input, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	in := &input{Name: "4×", Glob: filepath.Join(dir, "part-*.csv")}
	linked := true
	for i := 1; i <= 4; i++ {
		part := filepath.Join(dir, "part-"+strconv.Itoa(i)+".csv")
		os.Remove(part)
		if err := os.Link(path, part); err != nil {
			linked = false
			if err := copyFile(path, part); err != nil {
				return nil, err
			}
			in.Warm = append(in.Warm, part)
		}
		st, err := os.Stat(part)
		if err != nil {
			return nil, err
		}
		in.Parts, in.Bytes = append(in.Parts, part), in.Bytes+st.Size()
	}
	if linked {
		in.Warm = []string{path} // the parts' pages are the CSV's
	} else {
		fmt.Println("the 4× parts are copies (no hard link to the CSV could be made): the page cache must hold all four")
	}
	return in, nil
}
