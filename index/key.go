package index

import (
	"fmt"

	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
)

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
	h.keyName = keyspec.Name(cols, fields, maxKeyName)
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
