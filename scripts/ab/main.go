// Command ab compares two csvidx binaries on the same data in one run, for
// a change whose contract is "no byte and no timing changes" (issue 39): an
// old binary (-old, or built from -old-rev in a temporary git worktree) and
// a new one (-new, the same as -bin, or built from the working tree), each
// measure taken of both in turns (see run.Turns), so that both see the
// same machine. On an orders CSV (scripts/csvgen, or -csv) it
//
//   - builds the index by user_id, and two indexes in one scan (user_id and
//     the composite user_id,status), -build-rounds times each, every build
//     into the binary's own place, warm, after the last index is removed;
//     every build must write the same bytes (SHA-256 of the .csvidx and
//     .csvidx.fence files) as every other, old or new;
//   - runs csvidx get as a process, warm, for an ordinary key and a heavy
//     key, -gets times each, with a Go hello-world process in the same turns
//     as the floor of any process; both binaries must print the same bytes;
//   - runs csvidx bench --json (in-process lookups of ~1000 ordinary keys,
//     warm) -rounds times, and takes the medians of its p50 and p99;
//   - times the appends, -append-rounds times: each binary, on its own
//     copy of the CSV cut to its first 80% at a line end, builds the index
//     by user_id (untimed), then the rest of the rows are appended, and it
//     runs csvidx update --no-compact (which writes FILE.csvidx.tail),
//     csvidx compact and csvidx verify, each timed, warm, both binaries at
//     each step in turns. The tail, the compacted index and its fence must
//     be the same bytes for both, and verify must print the same and exit
//     0. Then a key byte in the middle of each copy is changed in place
//     (the size stays): verify must print the same and exit 1 for both.
//
// It prints a table of the medians and of new/old paired (the median of
// the ratios of runs in the same round: see run.PairedRatio) with the
// interquartile range of those ratios, the middle half of the rounds,
// against the targets (build, get, update, compact and verify at most 1.03,
// in-process p50 at most 1.05), and writes the figures as JSON
// (run.SaveResults). Any byte that differs, or an exit status other than
// verify's due one, fails the run (exit status 1) unless -allow-diff; a
// ratio over its target is reported as "over" and does not.
//
// Read the ratios against an A/A run made the same day: -aa runs the old
// binary on both sides (the new side a copy of it under another name), so
// the table shows this machine's noise, where every difference is chance,
// and a line under the table says so. On the 2-core reference VM the A/A
// spread was up to 8% in one run of 20 rounds: a ratio that far from 1
// shows no change unless that day's A/A ratios and ranges stayed closer.
//
//	go run ./scripts/ab                                   # HEAD against the working tree, 5M rows
//	go run ./scripts/ab -aa                               # HEAD against itself: the noise
//	go run ./scripts/ab -old-rev HEAD~1 -rows 200000 -rounds 3
//	go run ./scripts/ab -old-rev main -rows 20000000 -build-rounds 4 -work /data/ab
//	go run ./scripts/ab -old /tmp/csvidx-old -new ./csvidx \
//	    -csv big.csv -keys keys.txt -heavy 484            # an existing file
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// config is a run's flags: the shared ones (-bin or -new, -rows, -csv,
// -work, -results) in the Script, and the comparison's own.
type config struct {
	*run.Script
	old, oldRev           string
	keys, ordinary, heavy string
	rounds, buildRounds   int
	gets, benchRounds     int
	appendRounds          int
	allowDiff, aa         bool
	oldFrom, newFrom      string // how each binary was made, for the report
}

func main() {
	c := config{Script: run.NewScript("ab")}
	c.CSVFlags(5_000_000, "an orders CSV to measure (generated when empty; needs -keys and -heavy)")
	c.WorkFlag("directory for the generated files, indexes and the old binary, kept (a temporary one when empty)")
	flag.StringVar(&c.Bin, "new", "", "the new csvidx binary, the same as -bin (built from the working tree when empty)")
	flag.StringVar(&c.old, "old", "", "the old csvidx binary (built from -old-rev when empty)")
	flag.StringVar(&c.oldRev, "old-rev", "HEAD", "the git revision -old is built from, in a temporary worktree")
	flag.StringVar(&c.keys, "keys", "", "ordinary keys for csvidx bench, one per line (generated with the CSV: 1000 random ones)")
	flag.StringVar(&c.ordinary, "ordinary", "", "the ordinary key for get (the first of -keys when empty)")
	flag.StringVar(&c.heavy, "heavy", "", "the heavy key for get: one with many rows (known when the CSV is generated)")
	flag.IntVar(&c.rounds, "rounds", 10, "runs of csvidx bench of each binary, in turns")
	flag.IntVar(&c.buildRounds, "build-rounds", 4, "builds of each kind by each binary, in turns")
	flag.IntVar(&c.gets, "gets", 200, "csvidx get processes of each binary for each key, in turns")
	flag.IntVar(&c.benchRounds, "bench-rounds", 20, "csvidx bench --rounds: timed rounds over the keys in each run")
	flag.IntVar(&c.appendRounds, "append-rounds", 10, "rounds of the appends (a build of the CSV's first 80%, untimed, then update, compact and verify) of each binary, in turns")
	flag.BoolVar(&c.allowDiff, "allow-diff", false, "report bytes that differ between old and new, but do not fail")
	flag.BoolVar(&c.aa, "aa", false, "A/A: run the old binary on both sides (the new side a copy of it), to show the machine's noise; -new is not used")
	flag.Parse()
	failed, err := compare(&c)
	if err != nil {
		log.Fatal(err)
	}
	if failed {
		os.Exit(1)
	}
}

// compare measures both binaries and reports; failed is whether bytes
// differed (and -allow-diff was not given).
func compare(c *config) (failed bool, err error) {
	c.newFrom = "given"
	if c.aa {
		if c.Bin != "" {
			return false, fmt.Errorf("-aa runs the old binary on both sides: -new (or -bin) %s is not used", c.Bin)
		}
		// The new side will be a copy of the old binary: nothing to build,
		// as the working tree may not build at all.
		c.Bin = "unused"
	} else if c.Bin == "" {
		c.newFrom = "built from the working tree"
	}
	remove, err := c.Workspace("csvidx-ab")
	if err != nil {
		return false, err
	}
	defer remove()
	if err := oldBinary(c); err != nil {
		return false, err
	}
	if c.aa {
		if err := aaBinary(c); err != nil {
			return false, err
		}
	}
	if err := dataAndKeys(c); err != nil {
		return false, err
	}
	hello, err := run.HelloBinary(c.Work)
	if err != nil {
		return false, fmt.Errorf("building the hello-world: %w", err)
	}
	st, err := os.Stat(c.CSV)
	if err != nil {
		return false, err
	}
	res := &results{
		Date: time.Now().UTC().Format(time.RFC3339), Cores: runtime.NumCPU(), GoVersion: runtime.Version(),
		CSV: c.CSV, CSVBytes: st.Size(), KeysFile: c.keys,
		Keys:   map[string]string{"ordinary": c.ordinary, "heavy": c.heavy},
		Rounds: c.rounds, BuildRounds: c.buildRounds, Gets: c.gets, BenchRounds: c.benchRounds,
		AppendRounds: c.appendRounds, AA: c.aa,
	}
	sides := [2]*side{
		{Name: "old", Bin: c.old, From: c.oldFrom, dir: filepath.Join(c.Work, "old")},
		{Name: "new", Bin: c.Bin, From: c.newFrom, dir: filepath.Join(c.Work, "new")},
	}
	res.Old, res.New = sides[0], sides[1]
	for _, sd := range sides {
		if err := os.MkdirAll(sd.dir, 0o755); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(os.Stderr, "old: %s (%s)\nnew: %s (%s)\n", sides[0].Bin, sides[0].From, sides[1].Bin, sides[1].From)

	if err := timeBuilds(res, sides, c.buildRounds); err != nil {
		return false, err
	}
	if err := timeGets(res, sides, hello, c.gets); err != nil {
		return false, err
	}
	if err := timeLookups(res, sides, c.rounds, c.benchRounds); err != nil {
		return false, err
	}
	if err := timeAppends(res, sides, c.appendRounds); err != nil {
		return false, err
	}
	for _, m := range res.Measures {
		m.finish()
	}
	res.Same = res.same()
	res.print()
	name, err := run.SaveResults(c.Results, "ab", st.Size(), res)
	if err != nil {
		return false, err
	}
	fmt.Println("\nwrote", name)
	if !res.Same {
		if c.allowDiff {
			log.Print("bytes differ between old and new, or an exit status is wrong (-allow-diff: not a failure)")
			return false, nil
		}
		log.Print("FAIL: bytes differ between old and new, or an exit status is wrong (see above; -allow-diff to only report them)")
		return true, nil
	}
	return false, nil
}

// oldBinary sets c.old: the -old binary, made absolute, or the csvidx of
// -old-rev, resolved to its commit first so that a kept -work directory
// never serves a binary of what the name meant before.
func oldBinary(c *config) error {
	if c.old != "" {
		c.oldFrom = "given"
		var err error
		c.old, err = filepath.Abs(c.old)
		return err
	}
	out, err := run.Output("git", "rev-parse", "--short=12", "--verify", c.oldRev+"^{commit}")
	if err != nil {
		return fmt.Errorf("-old-rev %s: %w", c.oldRev, err)
	}
	commit := strings.TrimSpace(out)
	c.oldFrom = fmt.Sprintf("built from %s, %s", c.oldRev, commit)
	c.old, err = run.BinaryAt(commit, c.Work)
	return err
}

// aaBinary sets c.Bin, for an A/A run, to a copy of the old binary in the
// workspace under another name: the same bytes in another file.
func aaBinary(c *config) error {
	data, err := os.ReadFile(c.old)
	if err != nil {
		return err
	}
	c.Bin = filepath.Join(c.Work, filepath.Base(c.old)+"-aa")
	c.newFrom = "A/A: a copy of the old binary"
	return os.WriteFile(c.Bin, data, 0o755)
}

// dataAndKeys generates the orders CSV and its keys where -csv was not
// given: 1000 random ordinary keys for csvidx bench, and the ordinary and
// heavy key from csvgen's -stats, as scripts/bench picks them. With -csv,
// -keys and -heavy must be given.
func dataAndKeys(c *config) error {
	if c.CSV == "" {
		c.CSV = filepath.Join(c.Work, "orders.csv")
		keys := filepath.Join(c.Work, "keys.txt")
		stats, err := run.GenerateStats(c.CSV, c.Rows, "-keys-out", keys, "-keys-n", "1000")
		if err != nil {
			return err
		}
		if c.keys == "" {
			c.keys = keys
		}
		if c.heavy == "" {
			c.heavy = run.StatField(stats, "heavy ids present:")
		}
	} else if c.keys == "" || c.heavy == "" {
		return fmt.Errorf("-csv %s needs -keys (ordinary keys, one per line) and -heavy (a key with many rows)", c.CSV)
	}
	if c.ordinary == "" {
		keys, err := os.ReadFile(c.keys)
		if err != nil {
			return err
		}
		c.ordinary, _, _ = strings.Cut(string(keys), "\n")
	}
	if c.ordinary == "" || c.heavy == "" {
		return fmt.Errorf("no ordinary key (%q) or no heavy key (%q)", c.ordinary, c.heavy)
	}
	return nil
}
