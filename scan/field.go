package scan

import "bytes"

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

// decodeField decodes the field starting at i. It returns the index of the
// delimiter or newline that ends the field (len(data) when it runs to the
// end) and the field's value. The value aliases data when the field needs no
// unescaping; otherwise it is built in scratch, which is returned for reuse.
func decodeField(data []byte, i int, delim byte, scratch []byte) (end int, value, buf []byte) {
	if i >= len(data) || data[i] != quote {
		end = index2(data, i, delim, '\n')
		value = data[i:end]
		if end < len(data) && data[end] == '\n' && end > i && data[end-1] == '\r' {
			value = value[:len(value)-1]
		}
		return end, value, scratch
	}
	q, escaped, closed := closeQuote(data, i)
	if !closed {
		value = data[i+1:]
		if escaped {
			scratch = unescape(scratch[:0], value)
			value = scratch
		}
		return len(data), value, scratch
	}
	end = index2(data, q, delim, '\n')
	content, trail := data[i+1:q-1], data[q:end]
	if end < len(data) && data[end] == '\n' && len(trail) > 0 && trail[len(trail)-1] == '\r' {
		trail = trail[:len(trail)-1]
	}
	if !escaped && len(trail) == 0 {
		return end, content, scratch
	}
	scratch = scratch[:0]
	if escaped {
		scratch = unescape(scratch, content)
	} else {
		scratch = append(scratch, content...)
	}
	scratch = append(scratch, trail...)
	return end, scratch, scratch
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
	fieldStart := i
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

// Fields decodes every field of the record that starts at start, for the
// header and other places where speed does not matter. It returns copies of
// the values, the index just past the record, and whether the record ended
// with a newline.
func Fields(data []byte, start int, delim byte) (fields [][]byte, end int, terminated bool) {
	var scratch []byte
	for i := start; ; {
		e, v, buf := decodeField(data, i, delim, scratch)
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
