// Command hashjoin is the in-memory hash join of xsv and qsv, written in Go
// for scripts/join to compare csvidx join with: it reads RIGHT whole into
// memory, builds a map from each row's key to the offsets of its rows, then
// streams LEFT line by line and prints each LEFT row with each RIGHT row of
// its key, as csvidx join --inner does. Records are read with csvidx's own
// scanner, so both parse the same; LEFT's records must not hold a newline
// inside quotes (scripts/csvgen writes none by default).
//
//	hashjoin LEFT RIGHT LEFTCOL RIGHTCOL > out.csv
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/csvidx/csvidx/scan"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hashjoin:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("usage: hashjoin LEFT RIGHT LEFTCOL RIGHTCOL")
	}
	lcol, err1 := strconv.Atoi(args[2])
	rcol, err2 := strconv.Atoi(args[3])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("the columns are 0-based numbers")
	}
	right, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	// The build side: key -> row offsets, a slice per key (xsv's
	// HashMap<ByteString, Vec<usize>>).
	rows := map[string][]int{}
	s, err := scan.New(right, ',', rcol)
	if err != nil {
		return err
	}
	var header []byte
	for first := true; s.Next(); first = false {
		if first {
			header = trim(right[s.Start():s.End()])
			continue
		}
		if k, ok := s.Key(); ok {
			rows[string(k)] = append(rows[string(k)], s.Start())
		}
	}
	lf, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer lf.Close()
	in := bufio.NewReaderSize(lf, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	var ls scan.Scanner
	row := scan.Scanner{}
	if err := row.Init(right, ',', rcol); err != nil {
		return err
	}
	for first := true; ; first = false {
		line, err := in.ReadSlice('\n')
		if len(line) == 0 && err != nil {
			break
		}
		rec := trim(line)
		if first {
			fmt.Fprintf(out, "%s,%s\n", rec, header)
			continue
		}
		if err := ls.Init(line, ',', lcol); err != nil {
			return err
		}
		if !ls.Next() {
			continue
		}
		k, ok := ls.Key()
		if !ok {
			continue
		}
		for _, off := range rows[string(k)] {
			row.At(off)
			out.Write(rec)
			out.WriteByte(',')
			out.Write(trim(right[row.Start():row.End()]))
			out.WriteByte('\n')
		}
	}
	return out.Flush()
}

// trim returns rec without its terminator.
func trim(rec []byte) []byte {
	n := len(rec)
	if n > 0 && rec[n-1] == '\n' {
		n--
		if n > 0 && rec[n-1] == '\r' {
			n--
		}
	}
	return rec[:n]
}
