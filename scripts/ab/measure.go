package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// A side is one of the two binaries, and the directory its builds write
// to in the workspace.
type side struct {
	Name string `json:"name"` // old or new
	Bin  string `json:"bin"`
	From string `json:"from"` // given, or built from what

	dir string
}

// one is the index of the side's one-key builds, which get and bench read.
func (sd *side) one() string { return filepath.Join(sd.dir, "one.csvidx") }

// two is the --index-dir of the side's builds of two indexes in one scan.
func (sd *side) two() string { return filepath.Join(sd.dir, "two") }

// A buildKind is one of the builds timed: its arguments for a side, how
// to remove what its last build wrote, and the index files it writes,
// which are hashed.
type buildKind struct {
	name  string
	args  func(csv string, sd *side) []string
	clear func(sd *side) error
	files func(sd *side) ([]string, error)
}

var buildKinds = []buildKind{{
	name: "build, one index (--key user_id)",
	args: func(csv string, sd *side) []string {
		return []string{"build", csv, "--key", "user_id", "--index", sd.one(), "-q"}
	},
	clear: func(sd *side) error { return run.RemoveIndex(sd.one()) },
	files: func(sd *side) ([]string, error) { return []string{sd.one(), sd.one() + ".fence"}, nil },
}, {
	name: "build, two indexes in one scan (--key user_id --key user_id,status)",
	args: func(csv string, sd *side) []string {
		return []string{"build", csv, "--key", "user_id", "--key", "user_id,status", "--index-dir", sd.two(), "-q"}
	},
	clear: func(sd *side) error {
		if err := os.RemoveAll(sd.two()); err != nil {
			return err
		}
		return os.MkdirAll(sd.two(), 0o755)
	},
	files: func(sd *side) ([]string, error) {
		var files []string
		for _, pattern := range []string{"*.csvidx", "*.csvidx.fence"} {
			m, err := filepath.Glob(filepath.Join(sd.two(), pattern))
			if err != nil {
				return nil, err
			}
			files = append(files, m...)
		}
		slices.Sort(files)
		if len(files) != 4 {
			return nil, fmt.Errorf("%s build wrote %d index and fence files in %s, want 4", sd.Name, len(files), sd.two())
		}
		return files, nil
	},
}}

// timeBuilds times each kind of build by each binary, rounds times in
// turns, warm, each after the last one's index is removed, and hashes the
// index files of every build: every build of a kind must write the same
// bytes, by either binary, in any round.
func timeBuilds(res *results, sides [2]*side, rounds int) error {
	ms := make([]*measure, len(buildKinds))
	for k, kind := range buildKinds {
		ms[k] = &measure{Name: fmt.Sprintf("%s, median of %d", kind.name, max(1, rounds)), Unit: "s", Target: 1.03}
		res.Measures = append(res.Measures, ms[k])
	}
	first := make([][2]map[string]string, len(buildKinds)) // the first round's SHA-256 by file name, by kind and side
	err := run.Turns(rounds, 2*len(buildKinds), func(round, i int) error {
		k, j := i/2, i%2
		kind, sd := buildKinds[k], sides[j]
		if err := kind.clear(sd); err != nil {
			return err
		}
		if err := run.Warm(res.CSV); err != nil {
			return err
		}
		r, err := run.Timed(sd.Bin, kind.args(res.CSV, sd)...)
		if err != nil {
			return fmt.Errorf("%s binary, %s: %w", sd.Name, kind.name, err)
		}
		ms[k].add(j, r.Seconds)
		fmt.Fprintf(os.Stderr, "round %d, %s binary, %s: %.3f s\n", round+1, sd.Name, kind.name, r.Seconds)
		sums, err := hashFiles(kind.files, sd)
		if err != nil {
			return err
		}
		if round == 0 {
			first[k][j] = sums
		} else if diff := differing(first[k][j], sums); len(diff) > 0 {
			res.Unsteady = append(res.Unsteady, fmt.Sprintf("the %s binary wrote other bytes in round %d than in the first: %s", sd.Name, round+1, strings.Join(diff, ", ")))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, kind := range buildKinds {
		old, nw := first[k][0], first[k][1]
		var names []string
		for n := range old {
			names = append(names, n)
		}
		for n := range nw {
			if _, ok := old[n]; !ok {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		label, _, _ := strings.Cut(kind.name, " (")
		for _, n := range names {
			res.Bytes = append(res.Bytes, check{What: label + ": " + n, Old: old[n], New: nw[n]})
		}
	}
	return nil
}

// hashFiles returns the SHA-256 of each of the files a build of a kind
// wrote for sd, by file name.
func hashFiles(files func(*side) ([]string, error), sd *side) (map[string]string, error) {
	paths, err := files(sd)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	for _, p := range paths {
		if sums[filepath.Base(p)], err = run.SHA256(p); err != nil {
			return nil, err
		}
	}
	return sums, nil
}

// differing returns the names whose value a and b do not share, sorted:
// names with another value, and names only one of them has.
func differing(a, b map[string]string) []string {
	var diff []string
	for n, v := range a {
		if w, ok := b[n]; !ok || w != v {
			diff = append(diff, n)
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			diff = append(diff, n)
		}
	}
	slices.Sort(diff)
	return diff
}

// timeGets times csvidx get as a process, warm, for the ordinary and the
// heavy key, each binary reading its own index by user_id, gets times in
// turns with a Go hello-world process, the floor. First, untimed, both
// binaries' output of each key is hashed: it must be the same bytes.
func timeGets(res *results, sides [2]*side, hello string, gets int) error {
	keys := []struct{ name, key string }{{"ordinary key", res.Keys["ordinary"]}, {"heavy key", res.Keys["heavy"]}}
	ms := make([]*measure, len(keys))
	for k, q := range keys {
		var sums [2]string
		for j, sd := range sides {
			out, err := run.Output(sd.Bin, "get", res.CSV, "--index", sd.one(), q.key)
			if err != nil {
				return err
			}
			sums[j] = sha(out)
		}
		res.Bytes = append(res.Bytes, check{What: fmt.Sprintf("get %s output", q.key), Old: sums[0], New: sums[1]})
		n, err := count(sides[1], res.CSV, q.key)
		if err != nil {
			return err
		}
		ms[k] = &measure{Name: fmt.Sprintf("get, %s %s (%d rows), a process, warm, median of %d", q.name, q.key, n, max(1, gets)), Unit: "ms", Target: 1.03}
		res.Measures = append(res.Measures, ms[k])
	}
	files := []string{res.CSV}
	for _, sd := range sides {
		files = append(files, sd.one(), sd.one()+".fence")
	}
	if err := run.Warm(files...); err != nil {
		return err
	}
	return run.Turns(gets, 1+2*len(keys), func(_, i int) error {
		if i == 0 {
			d, err := run.Time(hello)
			res.FloorSeconds = append(res.FloorSeconds, d.Seconds())
			return err
		}
		k, j := (i-1)/2, (i-1)%2
		sd := sides[j]
		d, err := run.Time(sd.Bin, "get", res.CSV, "--index", sd.one(), keys[k].key)
		if err != nil {
			return fmt.Errorf("%s binary, get %s: %w", sd.Name, keys[k].key, err)
		}
		ms[k].add(j, d.Seconds())
		return nil
	})
}

// count returns the rows of key, as sd's get --count finds them.
func count(sd *side, csv, key string) (int64, error) {
	out, err := run.Output(sd.Bin, "get", csv, "--index", sd.one(), "--count", key)
	if err != nil {
		return 0, err
	}
	_, n, _ := strings.Cut(strings.TrimSpace(out), "\t")
	return strconv.ParseInt(n, 10, 64)
}

// benchOut is what the table takes of csvidx bench --json.
type benchOut struct {
	P50  float64 `json:"p50_ns"`
	P99  float64 `json:"p99_ns"`
	Rows int64   `json:"rows"` // the rows the lookups of every key found, once
}

// parseBench reads csvidx bench --json's output.
func parseBench(out string) (benchOut, error) {
	var b benchOut
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		return b, fmt.Errorf("bench output %q: %w", out, err)
	}
	if b.P50 <= 0 {
		return b, fmt.Errorf("bench output %q: no p50_ns", out)
	}
	return b, nil
}

// timeLookups runs csvidx bench --json of each binary over the keys file,
// warm, with its own index by user_id, rounds times in turns, and keeps
// the p50 and the p99 of each run. Both must find the same rows.
func timeLookups(res *results, sides [2]*side, rounds, benchRounds int) error {
	p50 := &measure{Name: fmt.Sprintf("in-process lookup p50 (csvidx bench, warm), median of %d", max(1, rounds)), Unit: "µs", Target: 1.05}
	p99 := &measure{Name: fmt.Sprintf("in-process lookup p99 (csvidx bench, warm), median of %d", max(1, rounds)), Unit: "µs"}
	res.Measures = append(res.Measures, p50, p99)
	var rows [2]int64
	if err := run.Warm(res.CSV); err != nil {
		return err
	}
	err := run.Turns(rounds, 2, func(round, j int) error {
		sd := sides[j]
		out, err := run.Output(sd.Bin, "bench", res.CSV, res.KeysFile, "--index", sd.one(), "--json", "--rounds", strconv.Itoa(benchRounds))
		if err != nil {
			return err
		}
		b, err := parseBench(out)
		if err != nil {
			return fmt.Errorf("%s binary: %w", sd.Name, err)
		}
		p50.add(j, b.P50/1e9)
		p99.add(j, b.P99/1e9)
		if round == 0 {
			rows[j] = b.Rows
		} else if b.Rows != rows[j] {
			res.Unsteady = append(res.Unsteady, fmt.Sprintf("the %s binary's lookups found %d rows in round %d, %d in the first", sd.Name, b.Rows, round+1, rows[j]))
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.Bytes = append(res.Bytes, check{What: "rows the in-process lookups found", Old: strconv.FormatInt(rows[0], 10), New: strconv.FormatInt(rows[1], 10)})
	return nil
}
