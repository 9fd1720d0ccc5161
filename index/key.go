package index

import (
	"fmt"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/scan"
)

// KeyColumns returns the columns of the index's key, 0-based, in the key's
// order: one, or the columns of a composite key.
func (ix *Index) KeyColumns() []int { return ix.main.h.KeyColumns() }

// Key returns the key that [Index.Get], [Index.Lookup] and [Index.Count]
// take for value, as a user writes it. For a key of one column it is value
// itself, whole. For a composite key, value is one CSV record in the
// file's dialect (a delimiter within a field is quoted, and a final
// newline is allowed) with a field per column: "42,shipped". A value of
// another number of fields is an error that says how many the key has.
func (ix *Index) Key(value []byte) ([]byte, error) {
	h := ix.main.h
	if h.Flags&format.FlagComposite == 0 {
		return value, nil
	}
	return scan.CompositeValue(value, h.Delim, len(h.KeyCols))
}

// CompositeKey returns the key that [Index.Get], [Index.Lookup] and
// [Index.Count] take for the fields of a composite key, one per column in
// the key's order, given as values (no quotes). For a key of one column it
// takes one field, that value. Another number of fields is an error.
func (ix *Index) CompositeKey(fields ...[]byte) ([]byte, error) {
	if n := len(ix.main.h.KeyColumns()); len(fields) != n {
		return nil, fmt.Errorf("%d fields for a key of %d columns", len(fields), n)
	}
	if len(fields) == 1 {
		return fields[0], nil
	}
	return scan.AppendComposite(nil, fields), nil
}
