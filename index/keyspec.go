package index

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/csvidx/csvidx/scan"
)

// A key spec names the columns of a key as one CSV record, comma-separated
// whatever the file's delimiter: "user_id" is one column, "user_id,status"
// the composite key (user_id, status), and a name holding a comma or a
// quote is quoted: `"a,b",c`. Each field is a header field's name or, if
// no header field has that name, a 0-based column number.

// keySpecFields splits a key spec into its fields.
func keySpecFields(key string) ([]string, error) {
	fields, end, _ := scan.Fields([]byte(key), 0, ',')
	if end < len(key) {
		return nil, fmt.Errorf("%w %q: a key is one line of column names or numbers", ErrColumn, key)
	}
	if len(fields) > scan.MaxKeyColumns {
		return nil, fmt.Errorf("%w: the key has %s; a key has at most %d columns", ErrKeyColumns, describeFields(fields), scan.MaxKeyColumns)
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = string(f)
	}
	return out, nil
}

// resolveKeySpec returns the columns of the key spec key, in its order,
// resolved against the header fields (found says whether there is a
// header), which was read with the delimiter delim. A column named twice
// is an error.
func resolveKeySpec(key string, fields [][]byte, found bool, delim byte) ([]int, error) {
	names, err := keySpecFields(key)
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(names))
	for i, name := range names {
		if cols[i], err = resolveKey(name, fields, found, delim); err != nil {
			return nil, err
		}
		if j := slices.Index(cols[:i], cols[i]); j >= 0 {
			return nil, fmt.Errorf("key %q names column %d twice (as %q and %q); name each column once", key, cols[i], names[j], name)
		}
	}
	return cols, nil
}

// keyNameOf returns the name of the key of cols: the header field of its
// column, or for a composite key those of its columns as one CSV record;
// nil when a column has no header field, or the record would be longer
// than maxKeyName.
func keyNameOf(cols []int, fields [][]byte) []byte {
	names := make([][]byte, len(cols))
	for i, c := range cols {
		if c >= len(fields) {
			return nil
		}
		names[i] = fields[c]
	}
	if len(cols) == 1 {
		return names[0]
	}
	rec := appendRecord(nil, names, ',')
	if len(rec) > maxKeyName {
		return nil
	}
	return rec
}

// appendRecord appends fields to dst as one CSV record separated by delim,
// without a terminator, quoting the fields that need it, and a record of
// one empty field, which would be a blank line.
func appendRecord(dst []byte, fields [][]byte, delim byte) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, delim)
		}
		lone := len(fields) == 1 && len(f) == 0 // unquoted, a blank line: no record
		if !lone && bytes.IndexByte(f, delim) < 0 && bytes.IndexByte(f, '"') < 0 && bytes.IndexByte(f, '\n') < 0 && bytes.IndexByte(f, '\r') < 0 {
			dst = append(dst, f...)
			continue
		}
		dst = append(dst, '"')
		dst = append(dst, bytes.ReplaceAll(f, []byte(`"`), []byte(`""`))...)
		dst = append(dst, '"')
	}
	return dst
}

// columnsSpec returns cols as a key spec of numbers: "3", or "1,4".
func columnsSpec(cols []int) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// initScanner makes s a scanner of data for the key h describes: one
// column, or a composite key's.
func (h *header) initScanner(s *scan.Scanner, data []byte) error {
	if h.flags&flagComposite != 0 {
		return s.InitComposite(data, h.delim, h.keyColumns())
	}
	return s.Init(data, h.delim, int(h.keyCol))
}

// setKey records the key of cols in h: its column, or a composite key's
// columns.
func (h *header) setKey(cols []int, fields [][]byte) {
	h.keyCol = uint32(cols[0])
	h.keyName = keyNameOf(cols, fields)
	h.flags &^= flagComposite
	h.keyCols = nil
	if len(cols) > 1 {
		h.flags |= flagComposite
		h.keyCols = make([]uint32, len(cols))
		for i, c := range cols {
			h.keyCols[i] = uint32(c)
		}
	}
}

// compositeColumns returns a composite key's columns, or nil for a key of
// one column.
func (h *header) compositeColumns() []int {
	if h.flags&flagComposite == 0 {
		return nil
	}
	return h.keyColumns()
}

// KeyColumns returns the columns of the index's key, 0-based, in the key's
// order: one, or the columns of a composite key.
func (ix *Index) KeyColumns() []int { return ix.main.h.keyColumns() }

// Key returns the key that [Index.Get], [Index.Lookup] and [Index.Count]
// take for value, as a user writes it. For a key of one column it is value
// itself, whole. For a composite key, value is one CSV record in the
// file's dialect (a delimiter within a field is quoted, and a final
// newline is allowed) with a field per column: "42,shipped". A value of
// another number of fields is an error that says how many the key has.
func (ix *Index) Key(value []byte) ([]byte, error) {
	h := ix.main.h
	if h.flags&flagComposite == 0 {
		return value, nil
	}
	return scan.CompositeValue(value, h.delim, len(h.keyCols))
}

// CompositeKey returns the key that [Index.Get], [Index.Lookup] and
// [Index.Count] take for the fields of a composite key, one per column in
// the key's order, given as values (no quotes). For a key of one column it
// takes one field, that value. Another number of fields is an error.
func (ix *Index) CompositeKey(fields ...[]byte) ([]byte, error) {
	if n := len(ix.main.h.keyColumns()); len(fields) != n {
		return nil, fmt.Errorf("%d fields for a key of %d columns", len(fields), n)
	}
	if len(fields) == 1 {
		return fields[0], nil
	}
	return scan.AppendComposite(nil, fields), nil
}
