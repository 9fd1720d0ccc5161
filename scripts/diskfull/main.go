// Command diskfull runs csvidx's writers out of disk space and checks what
// they leave: exit status 2 with a one-line error that names the full
// directory, the previous index byte for byte as it was (and still
// answering: verify finds it equal to a fresh build of what it covers), and
// no temporary byte left in the index's directory or the spill directory.
//
// Usage:
//
//	go run ./scripts/diskfull -rows 200000
//
// A full disk is a small tmpfs mounted for the purpose, just too small for
// what the writer needs: the spill directory of an external-sort build, or
// the index's own directory for a build, an update (the tail) and a compact.
// Mounting needs root; without it those cases are skipped. A file size limit
// (prlimit --fsize, which makes writes fail with EFBIG) needs no privilege
// and is tried on every machine. Prints a table and writes JSON to results/tmp/ (-results says where else).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// result is one writer run out of room.
type result struct {
	Case     string `json:"case"`
	Room     string `json:"room"` // what was too small
	Exit     int    `json:"exit_status"`
	Message  string `json:"message"`
	Intact   bool   `json:"index_intact"`
	TempLeft int    `json:"temp_files_left"`
	Problem  string `json:"problem,omitempty"`
}

func main() { os.Exit(runCases()) }

// runCases runs the cases and returns the exit status; its deferred
// unmounts run before the process exits.
func runCases() int {
	s := run.NewScript("diskfull")
	s.RowsFlag(200_000)
	flag.Parse()

	remove, err := s.Workspace("csvidx-diskfull")
	check(err)
	defer remove()
	w, err := newWorld(s.Work, s.Bin, s.Rows)
	if err != nil {
		log.Print(err)
		return 1
	}
	defer w.unmountAll() // before remove: deferred calls run last first

	var res []result
	for _, c := range w.cases() {
		r := c.run(w)
		res = append(res, r)
	}

	fmt.Printf("\nwriters out of disk space, %d rows (%d bytes)\n\n", s.Rows, w.fullSize)
	fmt.Printf("%-38s %-26s %4s %7s %9s  %s\n", "case", "too small", "exit", "intact", "temp left", "problem")
	bad := 0
	for _, r := range res {
		fmt.Printf("%-38s %-26s %4d %7v %9d  %s\n", r.Case, r.Room, r.Exit, r.Intact, r.TempLeft, r.Problem)
		if r.Problem != "" {
			bad++
		}
	}
	fmt.Println()
	for _, r := range res {
		fmt.Printf("%s: %s", r.Case, r.Message)
	}
	fmt.Printf("\n%d cases, %d failed\n", len(res), bad)

	out, err := run.SaveResults(s.Results, "diskfull", int64(w.fullSize), map[string]any{"rows": s.Rows, "csv_bytes": w.fullSize, "cpus": runtime.NumCPU(), "cases": res})
	if err != nil {
		log.Print(err)
		return 1
	}
	fmt.Println("wrote", out)
	if bad > 0 {
		return 1
	}
	return 0
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
