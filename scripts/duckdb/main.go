// Command duckdb measures what answering csvidx's questions costs without an
// index: DuckDB scans the whole CSV for every query, the way a user with only
// the CSV and a SQL engine would ask "how many rows does this key have".
//
// Usage (from this directory):
//
//	go run . -csv orders.csv -key user_id -keys keys.txt [-batch batch.txt] [-runs 2]
//
// For each key in -keys (one a line) it runs
//
//	SELECT count(*) FROM read_csv(?, all_varchar=true, header=true, ...) WHERE "<key>" = ?
//
// -runs times (default 2) and reports the first time and the best time. With
// -batch it also runs one query counting the rows whose key is any of the
// keys in that file (a semi join against the list of keys), the same number
// of times. Every column is read as text, so keys compare as strings, as
// csvidx compares them. The database is in memory and empty; DuckDB keeps no
// results between queries, so each query parses the CSV again (the file
// itself stays in the OS page cache, and DuckDB may keep whatever its own
// file cache normally keeps). DuckDB uses all cores, its default.
//
// It prints one JSON object on stdout:
//
//	{"tool":"duckdb","version":"v1.5.x","threads":2,"csv":"orders.csv","column":"user_id","runs":2,
//	 "queries":[{"key":"42","count":17,"first_seconds":0.9,"seconds":0.8}],
//	 "batch":{"keys":1000,"count":8123,"first_seconds":1.1,"seconds":1.0}}
//
// "batch" is left out without -batch. Errors go to stderr, with exit status 1.
//
// With -join-left and -join-right it runs one join instead (csvidx join's
// question, for scripts/join):
//
//	COPY (SELECT * FROM read_csv(LEFT) l JOIN read_csv(RIGHT) r ON l."<key>" = r."<key>") TO '/dev/null' (FORMAT csv, HEADER)
//
// once, every column as text, and prints {"tool":"duckdb",...,"rows":N,"seconds":S}:
// DuckDB builds a hash table of one side and writes every joined row as CSV,
// as csvidx join does.
//
// This program lives in its own Go module (its own go.mod) because the
// DuckDB driver pulls in cgo, a prebuilt DuckDB library of tens of MB and
// many other modules; as a nested module it stays out of the main module's
// go.mod, go.sum, `go build ./...` and `go test ./...`.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

type query struct {
	Key          string  `json:"key"`
	Count        int64   `json:"count"`
	FirstSeconds float64 `json:"first_seconds"` // the first run
	Seconds      float64 `json:"seconds"`       // the best run
}

type batch struct {
	Keys         int     `json:"keys"` // lines in the batch file; duplicates count once in count
	Count        int64   `json:"count"`
	FirstSeconds float64 `json:"first_seconds"`
	Seconds      float64 `json:"seconds"`
}

type report struct {
	Tool    string  `json:"tool"`
	Version string  `json:"version"`
	Threads int64   `json:"threads"`
	CSV     string  `json:"csv"`
	Column  string  `json:"column"`
	Runs    int     `json:"runs"`
	Queries []query `json:"queries"`
	Batch   *batch  `json:"batch,omitempty"`
}

func main() {
	csvPath := flag.String("csv", "", "the CSV file, with a header line")
	column := flag.String("key", "", "the key column's name in the header")
	keysPath := flag.String("keys", "", "file of keys, one a line: one count(*) query each")
	batchPath := flag.String("batch", "", "file of keys, one a line: one query counting the rows with any of them")
	runs := flag.Int("runs", 2, "times to run each query")
	joinLeft := flag.String("join-left", "", "join this CSV (with a header) with -join-right by -key, instead")
	joinRight := flag.String("join-right", "", "the right side of -join-left")
	joinType := flag.String("join-type", "inner", "-join-left's join: inner or left")
	flag.Parse()
	var err error
	if *joinLeft != "" {
		err = join(*joinLeft, *joinRight, *column, *joinType)
	} else {
		err = run(*csvPath, *column, *keysPath, *batchPath, *runs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "duckdb:", err)
		os.Exit(1)
	}
}

func run(csvPath, column, keysPath, batchPath string, runs int) error {
	switch {
	case flag.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	case csvPath == "" || column == "" || keysPath == "":
		return errors.New("-csv, -key and -keys are required")
	case runs < 1:
		return fmt.Errorf("-runs %d: need at least 1", runs)
	}
	if _, err := os.Stat(csvPath); err != nil {
		return err // DuckDB would say "No files found", which hides the reason
	}
	keys, err := readKeys(keysPath)
	if err != nil {
		return err
	}
	var batchKeys []string
	if batchPath != "" {
		if batchKeys, err = readKeys(batchPath); err != nil {
			return err
		}
	}

	ctx := context.Background()
	db, err := sql.Open("duckdb", "") // in memory, default settings
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // one connection for every query
	if err != nil {
		return err
	}
	defer conn.Close()

	r := report{Tool: "duckdb", CSV: csvPath, Column: column, Runs: runs, Queries: []query{}}
	if err := conn.QueryRowContext(ctx, "SELECT version(), current_setting('threads')").Scan(&r.Version, &r.Threads); err != nil {
		return err
	}

	// The dialect is given rather than sniffed, so a sample that happens to
	// hold no quoted field cannot make DuckDB guess another quote character.
	from := `FROM read_csv(?, all_varchar=true, header=true, delim=',', quote='"', escape='"')`
	col := quoteIdent(column)
	one := `SELECT count(*) ` + from + ` WHERE ` + col + ` = ?`
	for _, k := range keys {
		q := query{Key: k}
		q.Count, q.FirstSeconds, q.Seconds, err = timed(ctx, conn, runs, one, csvPath, k)
		if err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
		r.Queries = append(r.Queries, q)
	}

	if batchPath != "" {
		// IN over a subquery is a semi join: a hash table of the keys,
		// probed once per CSV row; a key listed twice counts once.
		many := `SELECT count(*) ` + from + ` WHERE ` + col + ` IN (SELECT unnest(?::VARCHAR[]))`
		b := batch{Keys: len(batchKeys)}
		b.Count, b.FirstSeconds, b.Seconds, err = timed(ctx, conn, runs, many, csvPath, batchKeys)
		if err != nil {
			return fmt.Errorf("batch: %w", err)
		}
		r.Batch = &b
	}

	enc := json.NewEncoder(os.Stdout)
	return enc.Encode(r)
}

// timed runs the count query runs times and returns its answer, the first
// run's time and the best run's time. Every run must give the same count.
func timed(ctx context.Context, conn *sql.Conn, runs int, sqlText string, args ...any) (count int64, first, best float64, err error) {
	for i := range runs {
		var n int64
		start := time.Now()
		if err = conn.QueryRowContext(ctx, sqlText, args...).Scan(&n); err != nil {
			return 0, 0, 0, err
		}
		s := time.Since(start).Seconds()
		if i == 0 {
			count, first, best = n, s, s
			continue
		}
		if n != count {
			return 0, 0, 0, fmt.Errorf("run %d counted %d rows, run 1 counted %d", i+1, n, count)
		}
		best = min(best, s)
	}
	return count, first, best, nil
}

// quoteIdent quotes a column name for SQL: inside double quotes a double
// quote is written twice, and nothing else is special.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// readKeys reads one key a line. A trailing \r is dropped and blank lines are
// skipped; nothing else is trimmed.
func readKeys(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line != "" {
			keys = append(keys, line)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no keys", path)
	}
	return keys, nil
}

// joinReport is what -join-left prints.
type joinReport struct {
	Tool    string  `json:"tool"`
	Version string  `json:"version"`
	Threads int64   `json:"threads"`
	Rows    int64   `json:"rows"`
	Seconds float64 `json:"seconds"`
}

// join runs the join of left and right on column once, inner or left as
// kind says, writing the rows as CSV to /dev/null, and prints how many it
// wrote and how long it took.
func join(left, right, column, kind string) error {
	joins := map[string]string{"inner": "JOIN", "left": "LEFT JOIN"}
	if joins[kind] == "" {
		return fmt.Errorf("-join-type %q: give inner or left", kind)
	}
	for _, p := range []string{left, right} {
		if _, err := os.Stat(p); err != nil {
			return err
		}
	}
	if column == "" {
		return errors.New("-key is required")
	}
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	r := joinReport{Tool: "duckdb"}
	if err := conn.QueryRowContext(ctx, "SELECT version(), current_setting('threads')").Scan(&r.Version, &r.Threads); err != nil {
		return err
	}
	read := func(p string) string {
		return `read_csv('` + strings.ReplaceAll(p, "'", "''") + `', all_varchar=true, header=true, delim=',', quote='"', escape='"')`
	}
	col := quoteIdent(column)
	q := `COPY (SELECT * FROM ` + read(left) + ` l ` + joins[kind] + ` ` + read(right) + ` r ON l.` + col + ` = r.` + col +
		`) TO '/dev/null' (FORMAT csv, HEADER)`
	start := time.Now()
	res, err := conn.ExecContext(ctx, q)
	if err != nil {
		return err
	}
	r.Seconds = time.Since(start).Seconds()
	if r.Rows, err = res.RowsAffected(); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}
