// Command csvgen writes orders-shaped CSV test data for csvidx, the same bytes for the same
// seed and options on any machine and with any number of threads.
//
// Usage:
//
//	go run ./scripts/csvgen [flags]
//
// The header is order_id,user_id,ts,amount,status,comment. In row n:
//
//   - order_id is n; ts is 2024-01-01T00:00:00 plus n-1 seconds (with -unix-ts the same
//     instant in Unix seconds, 1704067200 plus n-1); amount is 1.00 to 999.99; status is
//     delivered, shipped, paid, pending or cancelled.
//   - user_id: a share -heavy-frac of the rows belongs to heavy users 1..heavy-users, the
//     rest to ordinary users, drawn uniformly from heavy-users+1 .. heavy-users +
//     max(1, (1-heavy-frac)*rows/rows-per-user), so each has about -rows-per-user rows.
//   - comment is empty (60%), a plain word (30%) or a quoted field with commas and doubled
//     quotes (10%); with -multiline F a share F of the rows get a quoted comment with line
//     breaks (\n, or \r\n with -crlf) instead.
//
// For example:
//
//	order_id,user_id,ts,amount,status,comment
//	1,1246,2024-01-01T00:00:00,977.14,delivered,
//	7,1125,2024-01-01T00:00:06,530.09,pending,urgent
//	11,1195,2024-01-01T00:00:10,80.93,delivered,"gift, wrap ""fragile"""
//
// Fields are quoted exactly as Python's csv.writer quotes them by default (QUOTE_MINIMAL), so
// tests can use Python's csv module as an oracle; encoding/csv reads the same records.
//
// With -stats, csvgen prints to standard error the rows and bytes written, a few heavy and
// ordinary user ids that occur and one that does not: the keys a benchmark needs. With
// -keys-out PATH it writes -keys-n distinct ordinary user ids that occur, one per line, in
// random order, for batch lookups. Both depend only on the flags, not on -threads.
//
// Examples:
//
//	go run ./scripts/csvgen -rows 10 -seed 7
//	go run ./scripts/csvgen -rows 100000000 -o /tmp/orders.csv -stats
//	go run ./scripts/csvgen -rows 1000 -crlf -bom -unterminated -multiline 0.05 -o edge.csv
//	go run ./scripts/csvgen -rows 20000000 -o big.csv -keys-out keys.txt -keys-n 1000
//	go run ./scripts/csvgen -rows 100000000 -unix-ts -o lean.csv   # 4.7 GB, the Rust README's workload size
//
// The sample testdata/orders.csv is regenerated with
//
//	go run ./scripts/csvgen -rows 3000 -seed 1 -multiline 0.01 -o testdata/orders.csv
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status: 0 done, 1 failed, 2 bad flags.
func run(args []string, stdout, stderr io.Writer) int {
	c := defaultConfig()
	fs := flag.NewFlagSet("csvgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Int64Var(&c.rows, "rows", c.rows, "number of data rows after the header")
	fs.Uint64Var(&c.seed, "seed", c.seed, "seed; the output is a function of the seed and the other flags")
	fs.Int64Var(&c.heavyUsers, "heavy-users", c.heavyUsers, "number of heavy users (ids 1..N); 0 for none")
	fs.Float64Var(&c.heavyFrac, "heavy-frac", c.heavyFrac, "share of rows that belong to heavy users")
	fs.Float64Var(&c.rowsPerUser, "rows-per-user", c.rowsPerUser, "average rows per ordinary user")
	fs.Float64Var(&c.multiline, "multiline", c.multiline, "share of rows with a line break inside a quoted comment")
	fs.BoolVar(&c.crlf, "crlf", false, "end records with \\r\\n instead of \\n")
	fs.BoolVar(&c.bom, "bom", false, "start the file with a UTF-8 byte order mark")
	fs.BoolVar(&c.unterminated, "unterminated", false, "leave the last record without a terminator")
	fs.BoolVar(&c.unixTS, "unix-ts", false, "write ts as Unix seconds (1704067200...): about 47 instead of 56 bytes a row at 100M rows")
	fs.IntVar(&c.threads, "threads", 0, "generator goroutines, 0 for one per core (the output does not depend on it)")
	out := fs.String("o", "", "output file (default standard output)")
	stats := fs.Bool("stats", false, "print rows, bytes, present heavy and ordinary ids and a missing id to standard error")
	keysOut := fs.String("keys-out", "", "write -keys-n distinct ordinary user ids that occur to this file, one per line")
	keysN := fs.Int("keys-n", 1000, "how many ids -keys-out writes (fewer if fewer occur)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: csvgen [flags]  (writes orders-shaped CSV; see go doc ./scripts/csvgen)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "csvgen: unexpected argument %q; all options are flags, see csvgen -h\n", fs.Arg(0))
		return 2
	}
	if *keysN < 0 {
		fmt.Fprintf(stderr, "csvgen: -keys-n %d is negative\n", *keysN)
		return 2
	}
	if err := c.validate(); err != nil {
		fmt.Fprintf(stderr, "csvgen: %v\n", err)
		return 2
	}
	c.trackKeys = *keysOut != ""
	l := newLayout(c)

	start := time.Now()
	s, err := generateTo(*out, stdout, &l)
	if err != nil {
		fmt.Fprintf(stderr, "csvgen: %v\n", err)
		return 1
	}
	if *keysOut != "" {
		if err := writeKeys(*keysOut, pickKeys(&l, s.seen, *keysN)); err != nil {
			fmt.Fprintf(stderr, "csvgen: %v\n", err)
			return 1
		}
	}
	if *stats {
		printStats(stderr, &l, &s, time.Since(start))
	}
	return 0
}

// generateTo writes the CSV to the file path, or to stdout when path is empty. A file it
// could not finish is removed, so a failed run does not leave a plausible-looking CSV behind.
func generateTo(path string, stdout io.Writer, l *layout) (summary, error) {
	if path == "" {
		return generate(stdout, l)
	}
	f, err := os.Create(path)
	if err != nil {
		return summary{}, err
	}
	s, err := generate(f, l)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.Mode().IsRegular() {
			os.Remove(path)
		}
		return s, fmt.Errorf("writing %s: %w", path, err)
	}
	return s, nil
}
