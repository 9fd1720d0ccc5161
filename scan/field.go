package scan

import (
	"bytes"
	"io"
	"math"
)

const quote = '"' // the quote character; it is not configurable

// closeQuote finds the end of the quoted field whose opening quote is at
// data[i]. It returns the index just past the closing quote and whether the
// field holds "" escapes. When the quote never closes, the field runs to the
// end of data: end is len(data) and closed is false.
func closeQuote(data []byte, i int) (end int, escaped, closed bool) {
	i++
	for {
		j := bytes.IndexByte(data[i:], quote)
		if j < 0 {
			return len(data), escaped, false
		}
		i += j + 1
		if i < len(data) && data[i] == quote {
			escaped = true
			i++
			continue
		}
		return i, escaped, true
	}
}

// skipField returns the index of the delimiter or newline that ends the
// field starting at i, or len(data) when the field runs to the end.
func skipField(data []byte, i int, delim byte) int {
	if i < len(data) && data[i] == quote {
		q, _, closed := closeQuote(data, i)
		if !closed {
			return len(data)
		}
		i = q
	}
	return index2(data, i, delim, '\n')
}

// longField is the size above which the scanner does not build a key that
// needs a copy to be decoded (a quoted field with "" escapes or with text
// after its closing quote) until asked: a hostile file can hold a key of
// gigabytes, which [Scanner.WriteKey] streams in fixed memory. A variable so
// that tests can lower it.
var longField = 64 << 10

// quotedField is a quoted field, split into the parts its value is made of.
type quotedField struct {
	content []byte // between the quotes, "" escapes and all
	trail   []byte // after the closing quote, up to the delimiter or terminator
	escaped bool   // content holds "" escapes
}

// splitQuoted splits the quoted field whose opening quote is at data[i]. It
// returns the field and the index of the delimiter or newline that ends it
// (len(data) when it runs to the end).
func splitQuoted(data []byte, i int, delim byte) (f quotedField, end int) {
	q, escaped, closed := closeQuote(data, i)
	if !closed {
		return quotedField{content: data[i+1:], escaped: escaped}, len(data)
	}
	end = index2(data, q, delim, '\n')
	f = quotedField{content: data[i+1 : q-1], trail: data[q:end], escaped: escaped}
	if end < len(data) && data[end] == '\n' && len(f.trail) > 0 && f.trail[len(f.trail)-1] == '\r' {
		f.trail = f.trail[:len(f.trail)-1]
	}
	return f, end
}

// aliased reports whether the field's value is a slice of the data: no
// escapes to undo, nothing after the closing quote.
func (f *quotedField) aliased() bool { return !f.escaped && len(f.trail) == 0 }

// appendTo appends the field's value to dst.
func (f *quotedField) appendTo(dst []byte) []byte {
	if f.escaped {
		dst = unescape(dst, f.content)
	} else {
		dst = append(dst, f.content...)
	}
	return append(dst, f.trail...)
}

// writeTo writes the field's value to w in pieces, never holding it whole:
// runs between "" escapes are gathered in buf (reused, returned) and
// written a few KiB at a time, longer ones as they are.
func (f *quotedField) writeTo(w io.Writer, buf []byte) ([]byte, error) {
	const size = 32 << 10
	buf = buf[:0]
	put := func(p []byte) error {
		if len(buf)+len(p) > size && len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if len(p) >= size {
			_, err := w.Write(p)
			return err
		}
		buf = append(buf, p...)
		return nil
	}
	s := f.content
	for f.escaped {
		j := bytes.IndexByte(s, quote)
		if j < 0 || j+1 >= len(s) {
			break
		}
		if err := put(s[:j+1]); err != nil {
			return buf, err
		}
		s = s[j+2:]
	}
	if err := put(s); err != nil {
		return buf, err
	}
	if err := put(f.trail); err != nil {
		return buf, err
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// decodeField decodes the field starting at i. It returns the index of the
// delimiter or newline that ends the field (len(data) when it runs to the
// end) and the field's value. The value aliases data when the field needs no
// unescaping; otherwise it is built in scratch, which is returned for reuse.
// A value that would have to be built and is longer than limit is not:
// value is nil, long is true and f holds the field.
func decodeField(data []byte, i int, delim byte, scratch []byte, limit int) (end int, value, buf []byte, f quotedField, long bool) {
	if i >= len(data) || data[i] != quote {
		end = index2(data, i, delim, '\n')
		value = data[i:end]
		if end < len(data) && data[end] == '\n' && end > i && data[end-1] == '\r' {
			value = value[:len(value)-1]
		}
		return end, value, scratch, f, false
	}
	f, end = splitQuoted(data, i, delim)
	switch {
	case f.aliased():
		return end, f.content, scratch, f, false
	case len(f.content)+len(f.trail) > limit:
		return end, nil, scratch, f, true
	}
	scratch = f.appendTo(scratch[:0])
	return end, scratch, scratch, f, false
}

// unescape appends s to dst with every "" turned into ".
func unescape(dst, s []byte) []byte {
	for {
		j := bytes.IndexByte(s, quote)
		if j < 0 || j+1 >= len(s) {
			return append(dst, s...)
		}
		dst = append(dst, s[:j+1]...)
		s = s[j+2:]
	}
}

// recordEnd returns the index just past the terminator of the record whose
// field starting at i is the next to read, or len(data) and false when the
// record runs to the end without one. A quote opens a quoted field only at the start of a field:
// at i itself or right after a delimiter.
func recordEnd(data []byte, i int, delim byte) (end int, terminated bool) {
	return recordEndFrom(data, i, i, delim)
}

// recordEndFrom is recordEnd where fieldStart is where the field being read
// started, or -1 if it started before i: a quote found at j >= i opens a
// quoted field only if j is fieldStart or follows a delimiter.
func recordEndFrom(data []byte, i, fieldStart int, delim byte) (end int, terminated bool) {
	for {
		j := index2(data, i, '\n', quote)
		if j >= len(data) {
			return len(data), false
		}
		if data[j] == '\n' {
			return j + 1, true
		}
		if j != fieldStart && data[j-1] != delim {
			i = j + 1 // a literal quote inside an unquoted field
			continue
		}
		q, _, closed := closeQuote(data, j)
		if !closed {
			return len(data), false
		}
		i = q
	}
}

// Unclosed reports whether the record that starts at start runs to the end
// of data inside a quoted field that never closes (2,"open): an
// unterminated last record, which, copied as written and followed by more
// records, would take them into its field. A quote inside an unquoted
// field (ab"c) opens nothing.
func Unclosed(data []byte, start int, delim byte) bool {
	for i := start; ; {
		if i < len(data) && data[i] == quote {
			q, _, closed := closeQuote(data, i)
			if !closed {
				return true
			}
			i = q
		}
		e := index2(data, i, delim, '\n')
		if e >= len(data) || data[e] == '\n' {
			return false
		}
		i = e + 1
	}
}

// Fields decodes every field of the record that starts at start, for the
// header and other places where speed does not matter. It returns copies of
// the values, the index just past the record, and whether the record ended
// with a newline.
func Fields(data []byte, start int, delim byte) (fields [][]byte, end int, terminated bool) {
	var scratch []byte
	for i := start; ; {
		e, v, buf, _, _ := decodeField(data, i, delim, scratch, math.MaxInt)
		scratch = buf
		fields = append(fields, bytes.Clone(v))
		switch {
		case e >= len(data):
			return fields, len(data), false
		case data[e] == '\n':
			return fields, e + 1, true
		}
		i = e + 1
	}
}

// FieldBounds appends to dst where each of the first n fields of rec, one
// record without its terminator, lies in rec as written, quotes and all:
// its start, then its end (the index of the delimiter after it, or
// len(rec)). A record of fewer fields gives fewer pairs. It reads rec only
// up to the end of field n-1, and decodes nothing: a join that leaves some
// columns out copies the others' bytes from these bounds.
func FieldBounds(dst []int, rec []byte, delim byte, n int) []int {
	for i := 0; n > 0; n-- {
		e := skipField(rec, i, delim)
		dst = append(dst, i, e)
		if e >= len(rec) {
			break
		}
		i = e + 1
	}
	return dst
}

// LoneCR returns the index of the first carriage return of the record
// data[start:end] that is outside quotes and not followed by a newline, or
// -1 if it has none. Such a CR is data in this dialect, but a file whose
// first record holds one most likely ends its lines with a lone CR (classic
// Mac OS, old Excel exports), and reads as one huge record.
func LoneCR(data []byte, start, end int, delim byte) int {
	fieldStart := start
	for i := start; i < end; i++ {
		switch c := data[i]; {
		case c == quote && i == fieldStart:
			q, _, closed := closeQuote(data[:end], i)
			if !closed {
				return -1
			}
			i = q - 1
		case c == delim:
			fieldStart = i + 1
		case c == '\r' && (i+1 == len(data) || data[i+1] != '\n'):
			return i
		}
	}
	return -1
}
