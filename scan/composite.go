package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A composite key is the fields of several columns of a record, in the
// key's order. It is handled as one byte string, its encoding: the fields'
// values joined by the separator 00 00, with every 00 byte within a value
// written as 00 ff. Two records have equal composite keys exactly when
// their encodings are equal, so the hash of a composite key is the hash
// of its encoding, and a lookup compares encodings. A key of one column
// is its value, unencoded.

// MaxKeyColumns is the most columns a composite key may have.
const MaxKeyColumns = 64

// ErrKeyColumns is returned for a composite key's columns that are fewer
// than two, more than MaxKeyColumns, negative or repeated.
var ErrKeyColumns = errors.New("a composite key needs 2 to 64 distinct columns, none negative")

// AppendComposite appends the encoding of the composite key whose fields
// are fields, in order, to dst.
func AppendComposite(dst []byte, fields [][]byte) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, 0, 0)
		}
		dst = appendEscaped(dst, f)
	}
	return dst
}

// appendEscaped appends v to dst with every 00 byte written as 00 ff.
func appendEscaped(dst, v []byte) []byte {
	if len(v) <= shortValue { // most key fields: a loop costs less than a search
		for _, b := range v {
			if b == 0 {
				return appendEscapedZeros(dst, v)
			}
		}
		return append(dst, v...)
	}
	return appendEscapedZeros(dst, v)
}

// shortValue is the longest field appendEscaped checks for 00 bytes with a
// loop rather than a search.
const shortValue = 16

// appendEscapedZeros is appendEscaped by searching for each 00 byte.
func appendEscapedZeros(dst, v []byte) []byte {
	for {
		j := bytes.IndexByte(v, 0)
		if j < 0 {
			return append(dst, v...)
		}
		dst = append(append(dst, v[:j+1]...), 0xff)
		v = v[j+1:]
	}
}

// CompositeValue parses value, one record in the dialect of delim (quotes
// and all; a final newline is allowed), as the value of a composite key of
// n columns, and returns its encoding. A value of another number of fields
// is an error that says how many were expected.
func CompositeValue(value []byte, delim byte, n int) ([]byte, error) {
	fields, end, _ := Fields(value, 0, delim)
	if end < len(value) {
		return nil, fmt.Errorf("key %q holds more than one record (a newline outside quotes)", value)
	}
	if len(fields) != n {
		what := "fields"
		if len(fields) == 1 {
			what = "field"
		}
		return nil, fmt.Errorf("key %q has %d %s; the index's key has %d columns: give a field for each, as one CSV record", value, len(fields), what, n)
	}
	return AppendComposite(nil, fields), nil
}

// keyPart is the value of one column of a composite key in the current
// record.
type keyPart struct {
	value []byte      // the decoded value, unless long
	buf   []byte      // where a value that needs unescaping is built
	field quotedField // the field, when long
	long  bool
}

// composite is what a Scanner of a composite key keeps.
type composite struct {
	cols  []int      // the key's columns, in its order
	asc   []int      // the same, in ascending order
	posOf []int      // for each column up to the last key column, its place in the key, or -1
	parts []keyPart  // the current record's key fields, in key order
	enc   []byte     // the current record's key, encoded
	multi *multiKeys // for a scanner of several keys (see InitKeys); nil for one composite key
}

// newComposite checks cols and returns what a scanner of their composite
// key keeps.
func newComposite(cols []int) (*composite, error) {
	if len(cols) < 2 || len(cols) > MaxKeyColumns {
		return nil, ErrKeyColumns
	}
	return columnParts(cols)
}

// columnParts returns what a scanner keeps to read the fields of cols, of
// any number, and ErrKeyColumns for a negative or repeated column.
func columnParts(cols []int) (*composite, error) {
	last := slices.Max(cols)
	c := &composite{cols: slices.Clone(cols), asc: slices.Sorted(slices.Values(cols)), posOf: make([]int, last+1), parts: make([]keyPart, len(cols))}
	for i := range c.posOf {
		c.posOf[i] = -1
	}
	for i, col := range cols {
		if col < 0 || c.posOf[col] >= 0 {
			return nil, ErrKeyColumns
		}
		c.posOf[col] = i
	}
	return c, nil
}

// InitComposite makes s a scanner like [Scanner.Init] whose key is the
// composite key of the fields cols (0-based, in the key's order): its
// [Scanner.Key] is the key's encoding (see [AppendComposite]), and a record
// that lacks any of the columns has no key.
func (s *Scanner) InitComposite(data []byte, delim byte, cols []int) error {
	c, err := newComposite(cols)
	if err != nil {
		return err
	}
	if err := s.Init(data, delim, 0); err != nil {
		return err
	}
	s.comp = c
	return nil
}

// compositeRecord reads the record starting at i, field by field up to
// the last key column, and then finds its end.
func (s *Scanner) compositeRecord(i int) {
	data, delim, c := s.data, s.delim, s.comp
	s.key, s.hasKey, s.long = nil, false, false
	for col := 0; ; col++ {
		var e int
		if k := c.posOf[col]; k < 0 {
			e = skipField(data, i, delim)
		} else {
			p := &c.parts[k]
			e, p.value, p.buf, p.field, p.long = decodeField(data, i, delim, p.buf, longField)
			s.long = s.long || p.long
		}
		lineEnds := e >= len(data) || data[e] == '\n'
		if col == len(c.posOf)-1 {
			s.hasKey = true
			if lineEnds {
				s.setEnd(e)
			} else {
				s.end, s.terminated = recordEnd(data, e+1, delim)
				s.pos = s.end
			}
			break
		}
		if lineEnds { // too short to have every key column
			s.setEnd(e)
			if c.multi != nil { // the keys it has may have a long part (see LongKeyOf)
				c.multi.fields = col + 1
				return
			}
			s.long = false
			return
		}
		i = e + 1
	}
	if c.multi != nil {
		c.multi.fields = len(c.posOf)
		return // each key is made when asked for (see KeyOf)
	}
	if !s.long {
		s.buildComposite()
	}
}

// quotedComposite reads the record starting at i whose first quote is at
// q, as compositeRecord does. The fields before the first quote are plain:
// when every key column's field ends before it, they are found as in
// plainComposite, and only the rest of the record needs the quote-aware
// search for its end.
func (s *Scanner) quotedComposite(i, q int) {
	data, c := s.data, s.comp
	prev, at := -1, i // the column whose field ends at at-1, or -1 at the record's start
	for _, col := range c.asc {
		start, stop, short := nthField(data, at, q, s.delim, col-prev-1)
		if short > 0 || stop >= q { // a key field holds the quote, or runs past it
			s.compositeRecord(i)
			return
		}
		p := &c.parts[c.posOf[col]]
		p.value, p.long = data[start:stop], false
		prev, at = col, stop+1
	}
	s.key, s.hasKey, s.long = nil, true, false
	s.end, s.terminated = recordEnd(data, at, s.delim)
	s.pos = s.end
	if c.multi != nil {
		c.multi.fields = len(c.posOf)
		return // each key is made when asked for (see KeyOf)
	}
	s.buildComposite()
}

// plainComposite reads the record data[i:nl], terminated by the newline at
// nl (or running to the end when nl is len(data)), which holds no quote: its
// fields are what lies between delimiters, found a word at a time as in
// plainRecord, column after column in ascending order.
func (s *Scanner) plainComposite(i, nl int) {
	data, c := s.data, s.comp
	s.key, s.hasKey, s.long = nil, false, false
	prev := -1 // the column whose field ends at i-1, or -1 at the record's start
	for _, col := range c.asc {
		start, stop, short := nthField(data, i, nl, s.delim, col-prev-1)
		if short > 0 { // too short to have every key column
			if c.multi != nil {
				c.multi.fields = col - short + 1
			}
			s.setEnd(nl)
			return
		}
		ended := stop == nl
		if ended && stop > start && nl < len(data) && data[stop-1] == '\r' {
			stop--
		}
		p := &c.parts[c.posOf[col]]
		p.value, p.long = data[start:stop], false
		if ended && col != c.asc[len(c.asc)-1] { // no field of a later column
			if c.multi != nil {
				c.multi.fields = col + 1
			}
			s.setEnd(nl)
			return
		}
		prev, i = col, stop+1
	}
	s.hasKey = true
	s.setEnd(nl)
	if c.multi != nil {
		c.multi.fields = len(c.posOf)
		return
	}
	s.buildComposite()
}

// buildComposite encodes the current record's composite key into enc.
func (s *Scanner) buildComposite() {
	c := s.comp
	c.enc = c.enc[:0]
	for k := range c.parts {
		p := &c.parts[k]
		if k > 0 {
			c.enc = append(c.enc, 0, 0)
		}
		if p.long {
			p.buf = p.field.appendTo(p.buf[:0])
			p.value, p.long = p.buf, false
		}
		c.enc = appendEscaped(c.enc, p.value)
	}
	s.key, s.long = c.enc, false
}

// writeComposite writes the current record's composite key, encoded, to w
// in pieces: a long field is never held whole.
func (s *Scanner) writeComposite(w io.Writer) error {
	ew := escapingWriter{w: w}
	for k := range s.comp.parts {
		p := &s.comp.parts[k]
		if k > 0 {
			if _, err := w.Write(separator[:]); err != nil {
				return err
			}
		}
		var err error
		if p.long {
			s.scratch, err = p.field.writeTo(&ew, s.scratch)
		} else {
			_, err = ew.Write(p.value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// escapingWriter writes to w what is written to it with every 00 byte
// written as 00 ff, in place: a piece of gigabytes is not copied.
type escapingWriter struct{ w io.Writer }

func (e *escapingWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		j := bytes.IndexByte(p, 0)
		if j < 0 {
			_, err := e.w.Write(p)
			return n, err
		}
		if _, err := e.w.Write(p[:j+1]); err != nil {
			return 0, err
		}
		if _, err := e.w.Write(escapedZero[:]); err != nil {
			return 0, err
		}
		p = p[j+1:]
	}
	return n, nil
}

// separator stands between the fields of an encoding.
var separator = [2]byte{0, 0}

// escapedZero is what follows a 00 byte of a value in an encoding.
var escapedZero = [1]byte{0xff}
