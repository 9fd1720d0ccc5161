// Command join measures csvidx join against the tools that build an
// in-memory hash table of one side on every run (issue 30), in one run:
// LEFTs of orders (scripts/csvgen, no heavy users) of each -left size
// joined with a RIGHT of -users users keyed by user_id, and with -fanout a
// LEFT of orders against a RIGHT of -fanout orders by user_id (each LEFT
// row matches about eight). Each case runs csvidx join (RIGHT indexed
// first, untimed), DuckDB (scripts/duckdb -join-left: COPY of the join to
// /dev/null, its default threads), hashjoin (xsv's design in Go,
// scripts/join/hashjoin; inner joins only) and, with -old, an older
// csvidx, warm, -rounds times in turns, and reports the median time, the
// peak anonymous RSS, the peak RSS and the rows out, which must agree.
// -join inner,left times both kinds of join. It prints a table and writes
// the figures as JSON (run.SaveResults).
//
//	go run ./scripts/join -left 1000000,10000000 -users 10000000 -work /data/join
//	go run ./scripts/join -left 10000000,100000000 -users 1000000 -join inner,left -hash-max 0
//
// With -cold it measures instead where a join on a cold cache should read
// RIGHT ahead (csvidx join --read-ahead): see cold.go.
//
//	go run ./scripts/join -cold 300,1000,3000,10000,30000 -users 10000000 -work /data/join
//
// With -modes it compares instead the joins that keep a bit per RIGHT row
// (--full), with the bits in memory and in a temporary file, against the
// inner join and, with -old, against an older binary: see modes.go.
//
//	go run ./scripts/join -modes -left 1000000 -users 2000000 -old /tmp/csvidx-old
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// A measurement is one tool's runs of one case: the median of their
// times, and the most memory any took.
type measurement struct {
	Tool        string    `json:"tool"`
	Seconds     float64   `json:"seconds"` // the median
	Each        []float64 `json:"each_seconds"`
	PeakAnonKiB int64     `json:"peak_anon_kib"` // RssAnon, polled every 5 ms
	PeakRSSKiB  int64     `json:"peak_rss_kib"`  // ru_maxrss: file pages mapped included
	Rows        int64     `json:"rows"`
}

// A joinCase is a LEFT joined with a RIGHT.
type joinCase struct {
	Name      string        `json:"name"`
	Join      string        `json:"join"` // inner or left
	LeftRows  int           `json:"left_rows"`
	RightRows int           `json:"right_rows"`
	Runs      []measurement `json:"runs"`
}

func main() {
	s := run.NewScript("join")
	s.WorkFlag("directory for the generated files, kept")
	lefts := flag.String("left", "1000000,10000000", "LEFT sizes in orders rows, comma-separated")
	users := flag.Int("users", 10_000_000, "rows of the users RIGHT")
	fanout := flag.Int("fanout", 0, "rows of an orders RIGHT for the fan-out case (LEFT: the second -left size, or the first); 0: none")
	skipHash := flag.Int("hash-max", 10_000_000, "run hashjoin only for LEFTs up to this many rows")
	cold := flag.String("cold", "", "instead: for each of these counts of lookups (comma-separated), time a join of that many random users with the users RIGHT cold, read page by page and read ahead")
	rounds := flag.Int("rounds", 3, "runs of each tool, in turns")
	joins := flag.String("join", "inner", "the joins to time: inner, left, or both, comma-separated")
	modes := flag.Bool("modes", false, "instead: time csvidx join inner and --full (a bit per RIGHT row, in memory and in a file) of the first -left size, in turns")
	old := flag.String("old", "", "an older csvidx binary to time the same joins with")
	flag.Parse()
	remove, err := s.Workspace("csvidx-join")
	if err != nil {
		log.Fatal(err)
	}
	defer remove()
	sizes, err := run.Ints(*lefts)
	if err != nil {
		log.Fatal(err)
	}
	duck := filepath.Join(s.Work, "duckdb-tool")
	hash := filepath.Join(s.Work, "hashjoin")
	for _, b := range [][]string{{"-C", "scripts/duckdb", "-o", duck, "."}, {"-o", hash, "./scripts/join/hashjoin"}} {
		if *cold != "" || *modes {
			break // csvidx alone
		}
		cmd := exec.Command("go", append([]string{"build"}, b...)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatal(err)
		}
	}
	usersCSV := filepath.Join(s.Work, fmt.Sprintf("users-%d.csv", *users))
	if err := writeUsers(usersCSV, *users); err != nil {
		log.Fatal(err)
	}
	if *cold != "" {
		probes, err := run.Ints(*cold)
		if err != nil {
			log.Fatal(err)
		}
		cs, err := measureCold(s.Bin, s.Work, usersCSV, *users, probes, *rounds)
		if err != nil {
			log.Fatal(err)
		}
		reportCold(cs)
		st, _ := os.Stat(usersCSV)
		name, err := run.SaveResults(s.Results, "join-cold", st.Size(), cs)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("\nwrote", name)
		return
	}
	orders := func(n int) string {
		p := filepath.Join(s.Work, fmt.Sprintf("orders-%d.csv", n))
		if _, err := os.Stat(p); err != nil {
			if err := run.Generate(p, n, "-heavy-users", "0", "-unix-ts"); err != nil {
				log.Fatal(err)
			}
		}
		return p
	}
	if *modes {
		left := orders(sizes[0])
		runs, err := measureModes(s.Bin, *old, left, usersCSV, *rounds)
		if err != nil {
			log.Fatal(err)
		}
		reportModes(runs)
		st, _ := os.Stat(usersCSV)
		name, err := run.SaveResults(s.Results, "join-modes", st.Size(), runs)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("\nwrote", name)
		return
	}
	var cases []*joinCase
	for _, kind := range strings.Split(*joins, ",") {
		if kind != "inner" && kind != "left" {
			log.Fatalf("-join %q: give inner, left or both", *joins)
		}
		tools := tools{bin: s.Bin, old: *old, duck: duck, hash: hash, kind: kind, rounds: *rounds}
		for _, n := range sizes {
			c := &joinCase{Name: fmt.Sprintf("%s orders x %s users, %s", count(n), count(*users), kind), Join: kind, LeftRows: n, RightRows: *users}
			tools.measureCase(c, orders(n), usersCSV, 0, n <= *skipHash)
			cases = append(cases, c)
		}
		if *fanout > 0 {
			n := sizes[min(1, len(sizes)-1)]
			c := &joinCase{Name: fmt.Sprintf("%s orders x %s orders (fan-out), %s", count(n), count(*fanout), kind), Join: kind, LeftRows: n, RightRows: *fanout}
			tools.measureCase(c, orders(n), orders(*fanout), 1, n <= *skipHash && *fanout <= *skipHash)
			cases = append(cases, c)
		}
	}
	report(cases)
	st, _ := os.Stat(usersCSV)
	name, err := run.SaveResults(s.Results, "join", st.Size(), cases)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("\nwrote", name)
}

// tools are the joins measureCase times.
type tools struct {
	bin, old   string // csvidx, and an older csvidx or ""
	duck, hash string // scripts/duckdb and hashjoin, built
	kind       string // inner or left
	rounds     int
}

// measureCase indexes right by user_id, its column rightCol (untimed), and
// times each tool's join of left with it, warm, t.rounds times in turns;
// the tools must agree on the rows out.
func (t tools) measureCase(c *joinCase, left, right string, rightCol int, withHash bool) {
	if out, err := exec.Command(t.bin, "build", right, "--key", "user_id", "-q").CombinedOutput(); err != nil {
		log.Fatalf("build %s: %v\n%s", right, err, out)
	}
	type tool struct {
		name string
		args []string
		rows func(lines int64, stdout string) (int64, error)
		csv  bool // it prints the rows: they go to /dev/null when timed
	}
	csvidx := func(bin string) []string {
		args := []string{bin, "join", left, right, "--key", "user_id"}
		if t.kind == "left" {
			args = append(args, "--left")
		}
		return args
	}
	list := []tool{
		{"csvidx join", csvidx(t.bin), linesRows, true},
		{"DuckDB", []string{t.duck, "-join-left", left, "-join-right", right, "-key", "user_id", "-join-type", t.kind}, duckRows, false},
	}
	if t.old != "" {
		list = append(list, tool{"csvidx join, old", csvidx(t.old), linesRows, true})
	}
	if withHash && t.kind == "inner" {
		list = append(list, tool{"hash join (Go map)", []string{t.hash, left, right, "1", strconv.Itoa(rightCol)}, linesRows, true})
	}
	c.Runs = make([]measurement, len(list))
	// The rows each tool prints, counted through a pipe in a run of its
	// own, untimed: timed, they go to /dev/null, as DuckDB's COPY writes
	// its rows (a pipe and its reader would take a core's share of the
	// time on this machine's two).
	for i, tl := range list {
		if !tl.csv {
			continue
		}
		m, err := measure(tl.args, tl.rows, true)
		if err != nil {
			log.Fatalf("%s, %s: %v", c.Name, tl.name, err)
		}
		c.Runs[i].Rows = m.Rows
	}
	if err := run.Warm(left, right, right+".csvidx"); err != nil {
		log.Fatal(err)
	}
	err := run.Turns(t.rounds, len(list), func(_, i int) error {
		tl := list[i]
		m, err := measure(tl.args, tl.rows, !tl.csv)
		if err != nil {
			return fmt.Errorf("%s, %s: %v", c.Name, tl.name, err)
		}
		r := &c.Runs[i]
		r.Tool = tl.name
		if !tl.csv {
			r.Rows = m.Rows
		}
		r.Each = append(r.Each, m.Seconds)
		r.Seconds = run.MedianOf(r.Each)
		r.PeakAnonKiB, r.PeakRSSKiB = max(r.PeakAnonKiB, m.PeakAnonKiB), max(r.PeakRSSKiB, m.PeakRSSKiB)
		fmt.Fprintf(os.Stderr, "%s, %s: %.2f s, %d MiB anonymous, %d rows\n", c.Name, tl.name, m.Seconds, m.PeakAnonKiB>>10, r.Rows)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range c.Runs[1:] {
		if r.Rows != c.Runs[0].Rows {
			log.Fatalf("%s: %s gave %d rows, %s %d", c.Name, r.Tool, r.Rows, c.Runs[0].Tool, c.Runs[0].Rows)
		}
	}
}

// measure runs args, polling its memory and, with count, counting the
// newlines it writes (the rows: csvgen's files hold none inside quotes);
// without, its output goes to /dev/null.
func measure(args []string, rows func(lines int64, stdout string) (int64, error), count bool) (measurement, error) {
	var m measurement
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	counted := make(chan lineCount, 1)
	if count {
		out, err := cmd.StdoutPipe()
		if err != nil {
			return m, err
		}
		go func() { counted <- countLines(out) }()
	} else {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return m, err
		}
		defer null.Close()
		cmd.Stdout = null
		counted <- lineCount{}
	}
	start := time.Now()
	peak, err := run.Poll(cmd)
	m.Seconds = time.Since(start).Seconds()
	lc := <-counted
	if err != nil {
		return m, err
	}
	m.PeakAnonKiB = peak
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.PeakRSSKiB = ru.Maxrss
	}
	m.Rows, err = rows(lc.lines, lc.head)
	return m, err
}

// lineCount is what countLines read.
type lineCount struct {
	lines int64
	head  string // the first 4 KiB
}

func countLines(r io.Reader) lineCount {
	var c lineCount
	buf := make([]byte, 1<<20)
	for {
		n, err := r.Read(buf)
		if len(c.head) < 4096 {
			c.head += string(buf[:min(n, 4096-len(c.head))])
		}
		for _, b := range buf[:n] {
			if b == '\n' {
				c.lines++
			}
		}
		if err != nil {
			return c
		}
	}
}

// linesRows: the data rows of a CSV output, its lines less the header.
func linesRows(lines int64, _ string) (int64, error) { return lines - 1, nil }

// duckRows: the rows DuckDB reports it wrote.
func duckRows(_ int64, stdout string) (int64, error) {
	var r struct {
		Rows int64 `json:"rows"`
	}
	err := json.Unmarshal([]byte(stdout), &r)
	return r.Rows, err
}

// writeUsers writes a users CSV of n rows, keyed by user_id 1..n, unless
// it is there.
func writeUsers(path string, n int) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("user_id,name,country,signup\n")
	countries := []string{"DE", "FR", "US", "JP", "BR", "IN"}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, "%d,user %d,%s,%d\n", i, i, countries[i%len(countries)], 1600000000+7*i)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// count writes n as 1M, 10M, 100k.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// report prints the table.
func report(cases []*joinCase) {
	fmt.Printf("\n| case | tool | time (median, each) | peak anonymous RSS | peak RSS | rows out |\n| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, c := range cases {
		for _, m := range c.Runs {
			fmt.Printf("| %s | %s | %.2f s (%s) | %s | %s | %d |\n", c.Name, m.Tool, m.Seconds, run.Seconds(m.Each), mib(m.PeakAnonKiB), mib(m.PeakRSSKiB), m.Rows)
		}
	}
	fmt.Println()
	for _, c := range cases {
		cs := c.Runs[0]
		var parts []string
		for _, m := range c.Runs[1:] {
			parts = append(parts, fmt.Sprintf("%.2fx the time and %.3fx the anonymous memory of %s", cs.Seconds/m.Seconds, float64(cs.PeakAnonKiB)/float64(max(m.PeakAnonKiB, 1)), m.Tool))
		}
		fmt.Printf("%s: csvidx took %s.\n", c.Name, strings.Join(parts, ", and "))
	}
}

// mib formats KiB as MiB.
func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
