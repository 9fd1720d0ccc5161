package run

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"
)

// A Script is what the check scripts under scripts/ share: the flags they
// all take, which flag.Parse fills in, and the workspace they run in.
// NewScript starts one; RowsFlag, CSVFlags and WorkFlag add the flags a
// script takes besides -bin and -results.
type Script struct {
	Bin     string // -bin: the csvidx binary; after Workspace, an absolute path
	Results string // -results: the directory for the JSON results
	Rows    int    // -rows: the data rows of the CSV the script generates
	CSV     string // -csv: the CSV to use; after GenerateCSV, the one generated when none was given
	Work    string // -work: the directory to work in; after Workspace, the workspace
}

// NewScript starts the check script called name: its log lines start with
// "name: " and carry no time, and it takes -bin, the csvidx binary (built
// when empty), and -results, the directory for the JSON results
// (results/tmp by default).
func NewScript(name string) *Script {
	log.SetFlags(0)
	log.SetPrefix(name + ": ")
	s := &Script{}
	flag.StringVar(&s.Bin, "bin", "", "the csvidx binary (built when empty)")
	flag.StringVar(&s.Results, "results", "results/tmp", "directory for the JSON results")
	return s
}

// RowsFlag defines -rows, the data rows of the CSV the script generates,
// with rows by default, for a script that always generates its CSV.
func (s *Script) RowsFlag(rows int) {
	flag.IntVar(&s.Rows, "rows", rows, "data rows of the generated CSV")
}

// CSVFlags defines -csv, the CSV to use (usage says what is done with it),
// and -rows, with rows by default: the rows GenerateCSV writes when -csv is
// not given.
func (s *Script) CSVFlags(rows int, usage string) {
	flag.IntVar(&s.Rows, "rows", rows, "rows to generate when -csv is not given")
	flag.StringVar(&s.CSV, "csv", "", usage)
}

// WorkFlag defines -work, a directory for Workspace to work in and keep
// instead of a temporary one; usage says what the script leaves there.
func (s *Script) WorkFlag(usage string) {
	flag.StringVar(&s.Work, "work", "", usage)
}

// Workspace makes the directory the script works in and sets s.Work to
// it: the -work directory where it was given (made if missing), or a new
// temporary directory whose name starts with pattern, as in os.MkdirTemp.
// It sets s.Bin to the -bin binary, made absolute, or, when -bin is empty,
// to one it builds in the workspace. It returns the function that removes
// what it made: the temporary directory, or in a -work directory the
// binary it built there.
func (s *Script) Workspace(pattern string) (remove func(), err error) {
	var made []string // what remove removes, the last first
	remove = func() {
		for i := len(made) - 1; i >= 0; i-- {
			os.RemoveAll(made[i])
		}
	}
	if s.Work != "" {
		if err := os.MkdirAll(s.Work, 0o755); err != nil {
			return nil, err
		}
	} else {
		if s.Work, err = os.MkdirTemp("", pattern); err != nil {
			return nil, err
		}
		made = append(made, s.Work)
	}
	if s.Bin != "" {
		s.Bin, err = filepath.Abs(s.Bin)
	} else if s.Bin, err = Binary(s.Work); err == nil {
		made = append(made, s.Bin)
	} else {
		err = fmt.Errorf("building csvidx: %w", err)
	}
	if err != nil {
		remove()
		return nil, err
	}
	return remove, nil
}

// GenerateCSV gives the script its CSV where -csv was not given: s.Rows
// orders rows, written by scripts/csvgen (extra flags go to it) to
// orders.csv in the workspace, which s.CSV then names. A CSV given with
// -csv is left as it is.
func (s *Script) GenerateCSV(extra ...string) error {
	if s.CSV != "" {
		return nil
	}
	s.CSV = filepath.Join(s.Work, "orders.csv")
	return Generate(s.CSV, s.Rows, extra...)
}

// SaveResults writes v as indented JSON, ending in a newline, to a new
// file in dir (made if missing) named KIND-SIZE-TIME.json, where size is
// the bytes of the CSV the run used and TIME the moment in UTC
// (20060102T150405), and returns the file's name.
func SaveResults(dir, kind string, size int64, v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := filepath.Join(dir, fmt.Sprintf("%s-%d-%s.json", kind, size, time.Now().UTC().Format("20060102T150405")))
	return name, os.WriteFile(name, append(b, '\n'), 0o644)
}
