package join

import (
	"slices"

	"github.com/csvidx/csvidx/scan"
)

// With Options.Coalesce the key is printed once, as SQL's USING prints it:
// RIGHT's key columns are cut out of its header and rows. A RIGHT row no
// LEFT row matched (Right, Full) keeps its key in LEFT's key columns, as
// COALESCE(left.k, right.k) would: LEFT's other fields are empty.
//
// A RIGHT row that is valid as written in the output's dialect (see
// asWritten) is not decoded: its fields are found up to the key's last
// column (scan.FieldBounds), and the bytes around the key's fields copied
// as they are; when the key is RIGHT's first columns, its part is a slice
// of the row, copied once, into the output. Another row is decoded whole
// and re-encoded, as side does.

// coalescing is what a join that prints the key once knows of its columns.
type coalescing struct {
	on        bool
	rightCols []int  // RIGHT's key columns, in the key's order
	isKey     []bool // by RIGHT column, up to the key's last: it is a key column
	prefix    int    // k when RIGHT's key columns are 0 to k-1, in any order; else 0
	leftPart  []int  // by LEFT column: 1 + the part of the key it holds, or 0
}

// newCoalescing returns what a join prints the key once by, from RIGHT's
// key columns rightCols, LEFT's leftCols (in the same order), and LEFT's
// and RIGHT's numbers of fields; and how many of RIGHT's fields the output
// has.
func newCoalescing(rightCols, leftCols []int, leftFields, rightFields int) (coalescing, int) {
	c := coalescing{on: true, rightCols: rightCols, leftPart: make([]int, leftFields)}
	c.isKey = make([]bool, slices.Max(rightCols)+1)
	for _, col := range rightCols {
		c.isKey[col] = true
	}
	if !slices.Contains(c.isKey, false) {
		c.prefix = len(c.isKey)
	}
	for i, col := range leftCols {
		if col < leftFields {
			c.leftPart[col] = i + 1
		}
	}
	kept := rightFields
	for col := range min(len(c.isKey), rightFields) {
		if c.isKey[col] {
			kept--
		}
	}
	return c, kept
}

// rightPart returns RIGHT's side of an output row for rec, a RIGHT record
// terminated or not: as side makes it, or, printing the key once, without
// its key columns.
func (w *joinWorker) rightPart(rec []byte, terminated bool) []byte {
	if !w.co.on {
		return w.side(rec, terminated, w.right.delim, rightSide)
	}
	return w.dropKey(rec, terminated, false)
}

// coalesced returns both sides of the output row of rec, a RIGHT record no
// LEFT row matched, printing the key once: LEFT's fields empty but its key
// columns, which hold rec's key, and rec without its key columns.
func (w *joinWorker) coalesced(rec []byte, terminated bool) (left, right []byte) {
	right = w.dropKey(rec, terminated, true)
	left = w.lines[leftSide][:0]
	for col, part := range w.co.leftPart {
		if col > 0 {
			left = append(left, w.delim)
		}
		if part > 0 {
			left = append(left, w.keyVals[part-1]...)
		}
	}
	w.lines[leftSide] = left
	return left, right
}

// dropKey returns rec, a RIGHT record terminated or not, without its key
// columns, in the output's dialect: the other fields' bytes as written when
// rec is valid as written, else re-encoded; nil when rec has no other
// field (see writeLine). With keys, it sets w.keyVals to the key's fields,
// in the output's dialect too (nil for a column rec is too short to have).
func (w *joinWorker) dropKey(rec []byte, terminated, keys bool) []byte {
	if terminated {
		rec = trimTerminator(rec)
	}
	delim := w.right.delim
	if w.asWritten(rec, terminated, delim) {
		if out, ok := w.cutKey(rec, keys); ok {
			return out
		}
	}
	fields, _, _ := scan.Fields(rec, 0, delim)
	w.kept = w.kept[:0]
	for col, f := range fields {
		if col >= len(w.co.isKey) || !w.co.isKey[col] {
			w.kept = append(w.kept, f)
		}
	}
	var out []byte
	if len(w.kept) > 0 {
		out = appendFields(w.lines[rightSide][:0], w.kept, w.delim)
		w.lines[rightSide] = out
	}
	if keys {
		w.keyBuf = w.keyBuf[:0]
		ends := w.bounds[:0]
		for _, col := range w.co.rightCols {
			if col < len(fields) {
				w.keyBuf = appendFields(w.keyBuf, fields[col:col+1], w.delim)
			}
			ends = append(ends, len(w.keyBuf))
		}
		w.bounds = ends
		w.keyVals = w.keyVals[:0]
		start := 0
		for i, end := range ends {
			var v []byte
			if w.co.rightCols[i] < len(fields) {
				v = w.keyBuf[start:end]
			}
			w.keyVals = append(w.keyVals, v)
			start = end
		}
	}
	return out
}

// cutKey is dropKey for rec valid as written in the output's dialect: the
// bytes of its other fields, copied; ok is false when the result would
// end with a carriage return that the output's terminator would take for
// its own (the key's field was the last), and rec must be re-encoded.
func (w *joinWorker) cutKey(rec []byte, keys bool) (out []byte, ok bool) {
	delim := w.right.delim
	n := len(w.co.isKey)
	b := scan.FieldBounds(w.bounds[:0], rec, delim, n)
	w.bounds = b
	have := len(b) / 2
	if keys {
		w.keyVals = w.keyVals[:0]
		for _, col := range w.co.rightCols {
			var v []byte
			if col < have {
				v = rec[b[2*col]:b[2*col+1]]
				if endsCR(v) { // it may end the line: the output's terminator would take its CR
					return nil, false
				}
			}
			w.keyVals = append(w.keyVals, v)
		}
	}
	rest := b[len(b)-1] + 1 // the fields after the key's last column
	more := have == n && rest <= len(rec)
	if w.co.prefix > 0 {
		if !more {
			return nil, true
		}
		return rec[rest:], true
	}
	out = w.lines[rightSide][:0]
	sep := false // out has a field
	for col := range have {
		if w.co.isKey[col] {
			continue
		}
		if sep {
			out = append(out, delim)
		}
		out = append(out, rec[b[2*col]:b[2*col+1]]...)
		sep = true
	}
	if more {
		if sep {
			out = append(out, delim)
		}
		out = append(out, rec[rest:]...)
	} else if !sep {
		return nil, true
	}
	w.lines[rightSide] = out
	return out, !endsCR(out)
}

// endsCR reports whether b ends with a carriage return.
func endsCR(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\r' }

// appendFields appends fields to dst as scan.AppendRecord does, but for a
// lone empty field, which stays empty: the fields are never a line alone.
func appendFields(dst []byte, fields [][]byte, delim byte) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, delim)
		}
		if len(f) > 0 {
			dst = scan.AppendRecord(dst, fields[i:i+1], delim)
		}
	}
	return dst
}

// rightNames returns RIGHT's side of the output's header, from names:
// without the key columns' when the key is printed once (nil when they are
// all RIGHT has).
func (w *joinWorker) rightNames(names [][]byte) []byte {
	if !w.co.on {
		return scan.AppendRecord(nil, names, w.delim)
	}
	var kept [][]byte
	for col, name := range names {
		if col >= len(w.co.isKey) || !w.co.isKey[col] {
			kept = append(kept, name)
		}
	}
	return scan.AppendRecord(nil, kept, w.delim)
}
