// Command heavy measures, for issue 43, the lookups whose rows are many:
// csvidx get of a heavy key (about 4,000 rows), get --count of it, and get
// --keys-file of 1000 ordinary keys, each a process, warm, against the
// same lookups by sqlite3 on the same data with an index on the column
// (its import and index are timed apart, not counted), with rg -F of the
// heavy key for scale and a Go hello-world process for the floor of any
// process. Every measure runs in turns, -runs times. It checks that csvidx
// and sqlite3 find the same number of rows before it reports, and prints a
// table: median time, peak resident memory (GNU time's maximum resident
// set size, /usr/bin/time, the CSV's mapped pages included) and its
// output's bytes, against the issue's
// targets (each at most sqlite3's time; a get's peak memory at most 32 MiB
// plus its output); and writes the figures as JSON into -results. The
// floor of an exact --count is measured in the same turns: a process that
// maps the CSV and reads one byte of each of the heavy key's rows, and
// one that reads 128 bytes of each with pread (scripts/heavy/touch), their
// offsets found by encoding/csv.
//
//	go run ./scripts/heavy -rows 5000000
package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// A measure is one lookup, a command run in turns.
type measure struct {
	Name    string    `json:"name"`
	Args    []string  `json:"args"`
	Peer    string    `json:"peer,omitempty"` // the sqlite3 measure it is held against
	Seconds []float64 `json:"seconds"`
	PeakKiB int64     `json:"peak_kib"` // of the untimed run
	Lines   int       `json:"lines"`
	Bytes   int       `json:"bytes"`
	out     string    // the first run's output, for check
}

// results is what the run measured.
type results struct {
	CSV           string     `json:"csv"`
	CSVBytes      int64      `json:"csv_bytes"`
	Heavy         string     `json:"heavy_key"`
	ImportSeconds float64    `json:"sqlite_import_seconds"`
	Measures      []*measure `json:"measures"`
}

func main() {
	s := run.NewScript("heavy")
	s.CSVFlags(5_000_000, "an orders CSV (generated when empty, with -heavy-users heavy users)")
	s.WorkFlag("the directory to work in (a temporary one when empty)")
	runs := flag.Int("runs", 30, "runs of each measure, in turns")
	heavyUsers := flag.Int("heavy-users", 250, "heavy users of the generated CSV: 20% of its rows among them")
	heavy := flag.String("heavy", "", "the heavy key, for -csv")
	keys := flag.String("keys", "", "1000 ordinary keys, one per line, for -csv")
	flag.Parse()
	remove, err := s.Workspace("csvidx-heavy-")
	if err != nil {
		log.Fatal(err)
	}
	defer remove()
	r, err := measureAll(s, *runs, *heavyUsers, *heavy, *keys)
	if err != nil {
		remove()
		log.Fatal(err)
	}
	report(r)
	name, err := run.SaveResults(s.Results, "heavy", r.CSVBytes, r)
	if err != nil {
		remove()
		log.Fatal(err)
	}
	fmt.Println("wrote", name)
}

// measureAll readies the CSV, its index and the database, and takes every
// measure.
func measureAll(s *run.Script, runs, heavyUsers int, heavy, keys string) (*results, error) {
	if s.CSV == "" {
		s.CSV = filepath.Join(s.Work, "orders.csv")
		keys = filepath.Join(s.Work, "keys.txt")
		stats, err := run.GenerateStats(s.CSV, s.Rows, "-heavy-users", fmt.Sprint(heavyUsers), "-keys-out", keys)
		if err != nil {
			return nil, err
		}
		heavy = run.StatField(stats, "heavy ids present:")
	}
	if heavy == "" || keys == "" {
		return nil, fmt.Errorf("-csv needs -heavy and -keys")
	}
	st, err := os.Stat(s.CSV)
	if err != nil {
		return nil, err
	}
	r := &results{CSV: s.CSV, CSVBytes: st.Size(), Heavy: heavy}
	if _, err := run.Output(s.Bin, "build", s.CSV, "--key", "user_id", "-q"); err != nil {
		return nil, err
	}
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		return nil, fmt.Errorf("sqlite3: %w (apt-get install sqlite3)", err)
	}
	db := filepath.Join(s.Work, "orders.db")
	os.Remove(db)
	start := time.Now()
	if _, err := run.Output(sqlite, db, "-cmd", ".mode csv", "-cmd", ".import "+s.CSV+" t", "CREATE INDEX i ON t(user_id);"); err != nil {
		return nil, err
	}
	r.ImportSeconds = time.Since(start).Seconds()
	data, err := os.ReadFile(keys)
	if err != nil {
		return nil, err
	}
	var quoted []string
	for _, k := range strings.Fields(string(data)) {
		quoted = append(quoted, "'"+k+"'")
	}
	batch := filepath.Join(s.Work, "batch.sql")
	if err := os.WriteFile(batch, []byte("SELECT * FROM t WHERE user_id IN ("+strings.Join(quoted, ",")+");\n"), 0o644); err != nil {
		return nil, err
	}
	hello, err := run.HelloBinary(s.Work)
	if err != nil {
		return nil, err
	}
	touch := filepath.Join(s.Work, "touch")
	if _, err := run.Output("go", "build", "-o", touch, "./scripts/heavy/touch"); err != nil {
		return nil, err
	}
	offsets := filepath.Join(s.Work, "heavy-offsets.txt")
	if err := writeOffsets(s.CSV, "user_id", heavy, offsets); err != nil {
		return nil, err
	}
	r.Measures = []*measure{
		{Name: "csvidx get, heavy key", Args: []string{s.Bin, "get", s.CSV, heavy}, Peer: "sqlite3, heavy key"},
		{Name: "sqlite3, heavy key", Args: []string{sqlite, "-readonly", db, "SELECT * FROM t WHERE user_id='" + heavy + "'"}},
		{Name: "csvidx get --count, heavy key", Args: []string{s.Bin, "get", s.CSV, "--count", heavy}, Peer: "sqlite3 count(*), heavy key"},
		{Name: "sqlite3 count(*), heavy key", Args: []string{sqlite, "-readonly", db, "SELECT count(*) FROM t WHERE user_id='" + heavy + "'"}},
		{Name: "csvidx get --keys-file, 1000 keys", Args: []string{s.Bin, "get", s.CSV, "--keys-file", keys}, Peer: "sqlite3 IN (1000 keys)"},
		{Name: "sqlite3 IN (1000 keys)", Args: []string{sqlite, "-readonly", db, "-init", batch, ".quit"}},
		{Name: "touch the heavy key's rows (the floor of an exact count)", Args: []string{touch, s.CSV, offsets}, Peer: "sqlite3 count(*), heavy key"},
		{Name: "pread 128 bytes of each of the heavy key's rows", Args: []string{touch, "-pread", s.CSV, offsets}, Peer: "sqlite3 count(*), heavy key"},
		{Name: "hello-world process", Args: []string{hello}},
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		r.Measures = append(r.Measures, &measure{Name: "rg -F of the heavy key (a scan, for scale)", Args: []string{rg, "-F", "-c", "," + heavy + ",", s.CSV}})
	}
	if err := run.Warm(s.CSV, s.CSV+".csvidx", db); err != nil {
		return nil, err
	}
	// An untimed pass: each command's output, for check, and its peak
	// memory, under GNU time (a child of this process would count this
	// process's memory, which vfork shares until exec, in its own).
	for _, m := range r.Measures {
		out, peak, err := outputAndPeak(m.Args)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		m.Lines, m.Bytes, m.PeakKiB = bytes.Count(out, []byte("\n")), len(out), peak
		if len(out) < 1<<10 {
			m.out = string(out)
		}
	}
	if err := check(r); err != nil {
		return nil, err
	}
	// The timed runs, in turns, their output to /dev/null (as hyperfine -N).
	err = run.Turns(runs, len(r.Measures), func(round, i int) error {
		m := r.Measures[i]
		cmd := exec.Command(m.Args[0], m.Args[1:]...)
		cmd.Stderr = os.Stderr
		start := time.Now()
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 { // nothing found
			err = nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		m.Seconds = append(m.Seconds, time.Since(start).Seconds())
		return nil
	})
	return r, err
}

// writeOffsets writes to path the offset of each row of csvPath whose
// column named column is key, one per line, as encoding/csv reads them.
func writeOffsets(csvPath, column, key, path string) error {
	f, err := os.Open(csvPath)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	r.FieldsPerRecord, r.ReuseRecord = -1, true
	header, err := r.Read()
	if err != nil {
		return err
	}
	col := slices.Index(header, column)
	if col < 0 {
		return fmt.Errorf("%s: no column %q", csvPath, column)
	}
	var b strings.Builder
	for {
		off := r.InputOffset()
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if col < len(rec) && rec[col] == key {
			fmt.Fprintln(&b, off)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// outputAndPeak runs args under GNU time and returns its output and its
// peak resident memory (KiB, the CSV's mapped pages included). Exit status
// 1 (nothing found) is no error.
func outputAndPeak(args []string) ([]byte, int64, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "maxrss %M"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %s", err, errb.String())
	}
	var peak int64
	for _, line := range strings.Split(errb.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "maxrss "); ok {
			fmt.Sscan(rest, &peak)
		}
	}
	return out.Bytes(), peak, nil
}

// check fails the run unless csvidx and sqlite3 found the same rows: the
// same number of lines, and the same count.
func check(r *results) error {
	by := map[string]*measure{}
	for _, m := range r.Measures {
		by[m.Name] = m
	}
	for _, pair := range [][2]string{{"csvidx get, heavy key", "sqlite3, heavy key"}, {"csvidx get --keys-file, 1000 keys", "sqlite3 IN (1000 keys)"}} {
		if a, b := by[pair[0]], by[pair[1]]; a.Lines != b.Lines {
			return fmt.Errorf("FAIL: %s printed %d rows, %s %d", a.Name, a.Lines, b.Name, b.Lines)
		}
	}
	n := by["csvidx get, heavy key"].Lines
	for _, name := range []string{"touch the heavy key's rows (the floor of an exact count)", "pread 128 bytes of each of the heavy key's rows"} {
		if got := strings.Fields(by[name].out); len(got) != 2 || got[0] != fmt.Sprint(n) {
			return fmt.Errorf("FAIL: %s: read %q offsets, want %d rows", name, got, n)
		}
	}
	if got, want := strings.TrimSpace(by["csvidx get --count, heavy key"].out), fmt.Sprintf("%s\t%d", r.Heavy, n); got != want {
		return fmt.Errorf("FAIL: get --count printed %q, want %q", got, want)
	}
	if got := strings.TrimSpace(by["sqlite3 count(*), heavy key"].out); got != fmt.Sprint(n) {
		return fmt.Errorf("FAIL: sqlite3 counted %q rows, csvidx printed %d", got, n)
	}
	return nil
}

// report prints the table.
func report(r *results) {
	fmt.Printf("\n%s: %d bytes; heavy key %s; sqlite3's import and index took %.1f s (not counted)\n\n", r.CSV, r.CSVBytes, r.Heavy, r.ImportSeconds)
	fmt.Println("| measure | runs | median | over its sqlite3 peer, paired (target ≤ 1) | peak memory | output | memory target (32 MiB + output) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
	by := map[string]*measure{}
	for _, m := range r.Measures {
		by[m.Name] = m
	}
	for _, m := range r.Measures {
		ratio, target := "", ""
		if p := by[m.Peer]; p != nil {
			ratio = fmt.Sprintf("%.2f", run.PairedRatio(m.Seconds, p.Seconds))
		}
		if strings.HasPrefix(m.Name, "csvidx") {
			target = "met"
			if float64(m.PeakKiB) > 32*1024+float64(m.Bytes)/1024 {
				target = "MISSED"
			}
		}
		fmt.Printf("| %s | %d | %.2f ms | %s | %.1f MiB | %d B | %s |\n", m.Name, len(m.Seconds), 1000*run.MedianOf(m.Seconds), ratio,
			float64(m.PeakKiB)/1024, m.Bytes, target)
	}
}
