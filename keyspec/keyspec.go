// Package keyspec provides key specs: the names of a key's columns as a
// user writes them ("user_id", or "user_id,status" for a composite key),
// parsed, resolved against a CSV's header, and described in messages. It
// imports nothing of csvidx but package scan, which reads the spec as a CSV
// record; package index, above it, stores what it resolves.
//
// A key spec names the columns of a key as one CSV record, comma-separated
// whatever the file's delimiter: "user_id" is one column, "user_id,status"
// the composite key (user_id, status), and a name holding a comma or a
// quote is quoted: `"a,b",c`. Each field is a header field's name or, if
// no header field has that name, a 0-based column number.
package keyspec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/csvidx/csvidx/scan"
)

// Errors that callers can tell apart with errors.Is.
var (
	// ErrColumn means the key column names no column of the CSV.
	ErrColumn = errors.New("no such column")
	// ErrKeyColumns means a key names more columns than an index's key
	// may have (scan.MaxKeyColumns), whether or not the CSV has them.
	ErrKeyColumns = errors.New("too many key columns")
	// ErrAmbiguousColumn means the key column's name is the name of two
	// header fields.
	ErrAmbiguousColumn = errors.New("ambiguous key column")
)

// Fields splits a key spec into its fields.
func Fields(key string) ([]string, error) {
	fields, end, _ := scan.Fields([]byte(key), 0, ',')
	if end < len(key) {
		return nil, fmt.Errorf("%w %q: a key is one line of column names or numbers", ErrColumn, key)
	}
	if len(fields) > scan.MaxKeyColumns {
		return nil, fmt.Errorf("%w: the key has %s; a key has at most %d columns", ErrKeyColumns, Describe(fields), scan.MaxKeyColumns)
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = string(f)
	}
	return out, nil
}

// Resolve returns the columns of the key spec key, in its order,
// resolved against the header fields (found says whether there is a
// header), which was read with the delimiter delim. A column named twice
// is an error.
func Resolve(key string, fields [][]byte, found bool, delim byte) ([]int, error) {
	names, err := Fields(key)
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(names))
	for i, name := range names {
		if cols[i], err = Column(name, fields, found, delim); err != nil {
			return nil, err
		}
		if j := slices.Index(cols[:i], cols[i]); j >= 0 {
			return nil, fmt.Errorf("key %q names column %d twice (as %q and %q); name each column once", key, cols[i], names[j], name)
		}
	}
	return cols, nil
}

// Column finds a key column: the header field equal to key, else key
// read as a 0-based column number. found says whether the CSV has a header
// record to look in; fields are its fields. A name that two header fields
// have is an error; delim is the delimiter the header was read with.
func Column(key string, fields [][]byte, found bool, delim byte) (int, error) {
	for i, f := range fields {
		if string(f) != key {
			continue
		}
		for j := i + 1; j < len(fields); j++ {
			if string(fields[j]) == key {
				return 0, fmt.Errorf("%w %q: the header has it twice, as columns %d and %d; give the 0-based column number instead", ErrAmbiguousColumn, key, i, j)
			}
		}
		return i, nil
	}
	if n, err := strconv.Atoi(key); err == nil && n >= 0 && n <= MaxColumn {
		return n, nil
	}
	if found {
		return 0, OrDelimiter(fmt.Errorf("%w %q: the header has %s", ErrColumn, key, Describe(fields)),
			fields, delim, "give a name or a 0-based number")
	}
	return 0, fmt.Errorf("%w %q: there is no header to look it up in; give a 0-based column number", ErrColumn, key)
}

// MaxColumn is the largest key column an index stores.
const MaxColumn = 1<<31 - 1

// Name returns the name of the key of cols: the header field of its
// column, or for a composite key those of its columns as one CSV record;
// nil when a column has no header field, or the name would be longer than
// max bytes (never cut short: a name cut short may name another column).
func Name(cols []int, fields [][]byte, max int) []byte {
	names := make([][]byte, len(cols))
	for i, c := range cols {
		if c >= len(fields) {
			return nil
		}
		names[i] = fields[c]
	}
	if len(cols) == 1 {
		if len(names[0]) > max {
			return nil
		}
		return names[0]
	}
	rec := scan.AppendRecord(nil, names, ',')
	if len(rec) > max {
		return nil
	}
	return rec
}

// Spec returns cols as a key spec of numbers: "3", or "1,4".
func Spec(cols []int) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}
