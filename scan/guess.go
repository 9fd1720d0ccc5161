package scan

// Helpers for guessing, from a piece of a CSV alone, where its records
// start: a parallel scan guesses at each chunk's boundary and checks the
// guess later, so these only need to be right often and cheap.

// CountFields returns how many fields the first record at or after i has,
// blank lines skipped as the Scanner skips them, and the index just past its
// terminator; end is len(data) and terminated false when the record runs to
// the end of data without one.
func CountFields(data []byte, i int, delim byte) (fields, end int, terminated bool) {
	i, _ = skipBlankLines(data, i, len(data))
	for {
		e := skipField(data, i, delim)
		fields++
		if e >= len(data) {
			return fields, len(data), false
		}
		if data[e] == '\n' {
			return fields, e + 1, true
		}
		i = e + 1
	}
}

// EndOutsideQuotes returns where the record that holds data[i] ends (just
// past its terminator) if data[i] is outside quotes: a quote opens a quoted
// field only at the start of a field (after a delimiter or a newline, or at
// i if it is one), and newlines inside quoted fields do not end the record.
// end is len(data) and terminated false when the record does not end within
// data.
func EndOutsideQuotes(data []byte, i int, delim byte) (end int, terminated bool) {
	fieldStart := -1 // data[i] is inside a field, unless a field starts there
	if i == 0 || i <= len(data) && (data[i-1] == delim || data[i-1] == '\n') {
		fieldStart = i
	}
	return recordEndFrom(data, i, fieldStart, delim)
}

// EndInsideQuotes returns where the record that holds data[i] ends (just
// past its terminator) if data[i] is inside a quoted field: past the quote
// that closes the field, the rest of the record. end is len(data) and
// terminated false when the field or the record does not end within data.
func EndInsideQuotes(data []byte, i int, delim byte) (end int, terminated bool) {
	if i <= 0 || i > len(data) {
		return len(data), false
	}
	q, _, closed := closeQuote(data, i-1) // as if data[i-1] opened the field
	if !closed {
		return len(data), false
	}
	// data[q] is no quote (closeQuote would have read it as an escape), so
	// q starts no quoted field: the rest of this field is taken literally.
	return recordEnd(data, q, delim)
}
