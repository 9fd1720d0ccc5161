// Command hostile builds csvidx indexes of hostile CSV files and checks
// that each build either succeeds or fails cleanly, within bounded memory
// and time, and that what it built is right.
//
// The files, all of about -size bytes (issue 9, item 7):
//
//	1   a quote opened near the start that never closes, then normal rows:
//	    by the SPEC the rest of the file is one field, so 6 records
//	2a  one quoted field of the whole size (commas, newlines, "" escapes)
//	2b  the same giant field as the key
//	3   every row with a quoted field of eight lines: 8 newlines in 9 are
//	    inside quotes, so the parallel scan's chunk boundary guesses fail
//	4   records of two bytes ("a\n"), no header, key 0: 10^8 of them at
//	    1 GiB and in proportion (the file is smaller than -size)
//	5   NUL bytes in the header, keys and fields
//	6   invalid UTF-8 in keys and fields (keys are bytes), after a BOM
//	7   rows of a million columns among ordinary rows: one, plus one per
//	    256 MiB; the key is column 1
//
// and a plain file of the same size (rows "i,u<i%100000>,x..." of ~56
// bytes) as the reference for time.
//
// Rules. A build passes when:
//   - it exits 0 with nothing on standard error, or (except case 1, which
//     must build) fails cleanly: exit 2 and one line "csvidx: ...", never
//     another status, a panic or a stack trace;
//   - its peak anonymous memory is at most -mem + -overhead MiB. That is
//     the highest RssAnon of the process, read from /proc/PID/status every
//     5 ms, as scripts/extsort_check measures it: the CSV's mapped pages
//     are file pages, which the kernel can drop, and are left out. The
//     table also shows ru_maxrss (ProcessState.SysUsage), which counts
//     them, for information only;
//   - it takes at most -factor times the plain file's build (the faster
//     of two) plus -slack seconds for process start-up at small sizes; a
//     build over the limit is run once more and the faster run counts;
//   - it leaves no temporary file;
//   - after a successful build, csvidx verify exits 0, info --json gives
//     the rows and keyed rows the generator wrote (and whether the last
//     row is unterminated), get --count gives each probe key's count
//     (keys with a NUL go through --keys-file, the others as arguments),
//     and get prints each probe key's rows byte for byte when there are
//     at most 64 KiB of them (no row at all: exit 1). The expectations
//     come from the generator, never from csvidx.
//
// It prints a table, writes results/tmp/hostile-SIZE-TIMESTAMP.json, and
// exits 1 when any check failed.
//
// Usage:
//
//	go run ./scripts/hostile                        # 16 MiB files, for CI
//	go run ./scripts/hostile -size 1073741824 -mem 64 -work /work/scratch/hostile
//	go run ./scripts/hostile -cases 1,3 -keep -work /tmp/h
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// config is what every case runs with.
type config struct {
	bin      string
	work     string
	size     int64
	mem      int
	overhead int
	threads  int
	factor   float64
	slack    float64
	keep     bool
}

func main() { os.Exit(hostile()) }

func hostile() int {
	s := run.NewScript("hostile")
	s.WorkFlag("directory for the files (default: a temporary directory, removed at the end)")
	var c config
	flag.Int64Var(&c.size, "size", 16<<20, "bytes per file")
	flag.IntVar(&c.mem, "mem", 64, "--mem-limit-mib of every build, in MiB")
	flag.IntVar(&c.overhead, "overhead", 32, "MiB of anonymous memory allowed over -mem")
	flag.IntVar(&c.threads, "threads", 0, "--threads of every build (0: all cores)")
	flag.Float64Var(&c.factor, "factor", 4, "most a hostile build may take, in plain builds of the same size")
	flag.Float64Var(&c.slack, "slack", 0.1, "seconds allowed on top of -factor, for process start-up")
	flag.BoolVar(&c.keep, "keep", false, "keep each case's files in -work")
	only := flag.String("cases", "", "comma-separated cases to run (default: all)")
	flag.Parse()

	remove, err := s.Workspace("csvidx-hostile")
	if err != nil {
		log.Print(err)
		return 2
	}
	defer remove()
	c.bin, c.work = s.Bin, s.Work

	rep := newReport(c.size, c.mem, c.overhead, c.factor, c.slack, c.threads)
	printHeader(rep)
	plain, err := runCase(&c, plainCase, 0)
	if err != nil {
		log.Print(err)
		return 2
	}
	rep.Results = append(rep.Results, plain)
	printResult(plain)
	for _, hc := range cases {
		if *only != "" && !contains(strings.Split(*only, ","), hc.ID) {
			continue
		}
		res, err := runCase(&c, hc, plain.Build.Seconds)
		if err != nil {
			log.Print(err)
			return 2
		}
		rep.Results = append(rep.Results, res)
		printResult(res)
	}
	bad := rep.failures()
	rep.OK = bad == ""
	name, err := run.SaveResults(s.Results, "hostile", rep.Size, rep)
	if err != nil {
		log.Print(err)
		return 2
	}
	fmt.Println("\nwrote", name)
	if !rep.OK {
		fmt.Println("FAIL:", bad)
		return 1
	}
	fmt.Printf("ok: every build succeeded or failed cleanly, within %d+%d MiB and %.1fx the plain build, and checked out\n", c.mem, c.overhead, c.factor)
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

// timeout is how long a command of a case may run before it is killed:
// long enough for any build within the limits, short enough that a build
// gone quadratic ends the run.
func (c *config) timeout(limit float64) time.Duration {
	if limit == 0 {
		return 30 * time.Minute
	}
	return 30*time.Second + time.Duration(10*limit*float64(time.Second))
}
