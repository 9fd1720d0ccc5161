package scan

import (
	"bytes"
	"errors"
	"fmt"
	"math"
)

// BOM is the UTF-8 byte order mark, skipped at the start of the data.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// CheckDelimiter reports whether c can separate fields: anything but the
// quote, \r and \n.
func CheckDelimiter(c byte) error {
	switch c {
	case quote, '\r', '\n':
		return fmt.Errorf("delimiter %q is not allowed: it must not be a quote, \\r or \\n", c)
	}
	return nil
}

// ErrBadColumn is returned by [New] for a negative key column.
var ErrBadColumn = errors.New("key column must not be negative")

// Scanner walks the records of data one at a time and decodes each
// record's key field. It never allocates after its first few records.
//
//	s, _ := scan.New(data, ',', 1)
//	for s.Next() {
//		if key, ok := s.Key(); ok {
//			use(s.Start(), key)
//		}
//	}
type Scanner struct {
	data   []byte
	delim  byte
	keyCol int
	pos    int // where the search for the next record begins

	start, end int    // the current record is data[start:end]
	key        []byte // its decoded key field, if hasKey
	hasKey     bool
	terminated bool   // the record ends with a newline
	scratch    []byte // holds keys that need unescaping
	nextQuote  int    // the first quote at or after pos, or len(data) when none
	limit      int    // no record starting at or past it is read

	blanks int64 // blank lines skipped so far
}

// New returns a scanner over data that decodes field keyCol (0-based) of
// each record, separated by delim. A UTF-8 byte order mark at the start of
// data is skipped.
func New(data []byte, delim byte, keyCol int) (*Scanner, error) {
	s := new(Scanner)
	if err := s.Init(data, delim, keyCol); err != nil {
		return nil, err
	}
	return s, nil
}

// Init makes s a scanner like [New] returns, for callers that keep a
// Scanner by value.
func (s *Scanner) Init(data []byte, delim byte, keyCol int) error {
	if err := CheckDelimiter(delim); err != nil {
		return err
	}
	if keyCol < 0 {
		return ErrBadColumn
	}
	*s = Scanner{data: data, delim: delim, keyCol: keyCol, scratch: s.scratch[:0], limit: math.MaxInt}
	s.Reset(0)
	return nil
}

// Reset makes the next call to [Scanner.Next] read the record starting at
// pos, after skipping any blank lines there. Reset(0) skips a byte order
// mark.
func (s *Scanner) Reset(pos int) {
	if pos == 0 && bytes.HasPrefix(s.data, BOM) {
		pos = len(BOM)
	}
	s.pos, s.nextQuote = pos, -1
	s.start, s.end, s.key, s.hasKey = pos, pos, nil, false
}

// Next advances to the next record. It returns false at the end of the data,
// and before a record that starts at or past the limit (see
// [Scanner.SetLimit]).
func (s *Scanner) Next() bool {
	i, blanks := s.skipBlanks(s.pos)
	if i >= s.limit {
		return false // the blank lines belong to whoever scans on from here
	}
	s.blanks += blanks
	if i >= len(s.data) {
		s.none(i)
		return false
	}
	s.start = i
	// Most records hold no quote at all: then a record is a line and its
	// fields are what lies between delimiters. The position of the next
	// quote in the data tells, for the price of one search per quote.
	if s.nextQuote < i {
		s.nextQuote = indexFrom(s.data, i, quote)
	}
	if nl := indexFrom(s.data, i, '\n'); nl < s.nextQuote {
		s.plainRecord(i, nl)
	} else {
		s.quotedRecord(i)
	}
	return true
}

// At reads the record that starts at off (after any blank lines there), as
// Reset(off) and Next would, but without looking past the record's line for
// the next quote: a lookup reads single records scattered over the file,
// and touching the bytes after each would cost cache and TLB misses.
func (s *Scanner) At(off int) bool {
	s.Reset(off)
	i, blanks := s.skipBlanks(s.pos)
	s.blanks += blanks
	if i >= len(s.data) {
		s.none(i)
		return false
	}
	s.start = i
	if nl := indexFrom(s.data, i, '\n'); bytes.IndexByte(s.data[i:nl], quote) < 0 {
		s.plainRecord(i, nl)
	} else {
		s.quotedRecord(i)
	}
	return true
}

// skipBlanks returns the first offset at or after i that does not start a
// blank line, and the number of blank lines skipped.
func (s *Scanner) skipBlanks(i int) (int, int64) {
	data := s.data
	var n int64
	for i < len(data) {
		if c := data[i]; c == '\n' {
			i++
		} else if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i += 2
		} else {
			break
		}
		n++
	}
	return i, n
}

// SetLimit makes Next stop before any record that starts at or past limit,
// leaving the scanner where the last record read ended. Parallel scans give
// each chunk of the data the records that start in its range.
func (s *Scanner) SetLimit(limit int) { s.limit = limit }

// Pos returns where the scan goes on: just past the last record read (or
// past trailing blank lines at the end of the data).
func (s *Scanner) Pos() int { return s.pos }

// none leaves the scanner at the end of the data, on no record.
func (s *Scanner) none(i int) {
	s.pos, s.start, s.end, s.key, s.hasKey, s.terminated = i, i, i, nil, false, false
}

// quotedRecord reads the record starting at i with the quote-aware search.
func (s *Scanner) quotedRecord(i int) {
	data, delim := s.data, s.delim
	for col := 0; col < s.keyCol; col++ {
		e := skipField(data, i, delim)
		if e >= len(data) || data[e] == '\n' { // too short to have the key
			s.setEnd(e)
			s.key, s.hasKey = nil, false
			return
		}
		i = e + 1
	}
	e, key, scratch := decodeField(data, i, delim, s.scratch)
	s.key, s.hasKey, s.scratch = key, true, scratch
	switch {
	case e >= len(data) || data[e] == '\n':
		s.setEnd(e)
	default:
		s.end, s.terminated = recordEnd(data, e+1, delim)
		s.pos = s.end
	}
}

// plainRecord reads the record data[i:nl], terminated by the newline at nl
// (or running to the end when nl is len(data)), which holds no quote.
func (s *Scanner) plainRecord(i, nl int) {
	start, end, ok := nthField(s.data, i, nl, s.delim, s.keyCol)
	s.key, s.hasKey = nil, ok
	if ok {
		if end == nl && end > start && nl < len(s.data) && s.data[end-1] == '\r' {
			end--
		}
		s.key = s.data[start:end]
	}
	s.setEnd(nl)
}

// setEnd ends the current record at the newline at e, or at the end of the
// data when e is len(data).
func (s *Scanner) setEnd(e int) {
	s.terminated = e < len(s.data)
	if s.terminated {
		e++
	}
	s.end, s.pos = e, e
}

// Start returns the offset of the current record's first byte.
func (s *Scanner) Start() int { return s.start }

// End returns the offset just past the current record's terminator, or
// len(data) for an unterminated last record.
func (s *Scanner) End() int { return s.end }

// Terminated reports whether the current record ends with a newline. Only
// the last record of the data can be unterminated.
func (s *Scanner) Terminated() bool { return s.terminated }

// Key returns the current record's decoded key field, and false when the
// record has too few fields to have one. The slice is valid until the next
// call to Next or Reset.
func (s *Scanner) Key() ([]byte, bool) { return s.key, s.hasKey }

// Blanks returns the number of blank lines skipped so far.
func (s *Scanner) Blanks() int64 { return s.blanks }
