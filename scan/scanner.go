package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// ErrDelimiterText means a delimiter given as text is neither one byte nor
// a name of the tab; its message says what to give.
var ErrDelimiterText = errors.New("give one byte, or '\\t' for tabs")

// ParseDelimiter reads a delimiter given as text, as a flag or an argument
// gives it: one byte, or \t or "tab" for a tab. It does not check that the
// byte can be a delimiter (see [CheckDelimiter]).
func ParseDelimiter(s string) (byte, error) {
	switch s {
	case `\t`, "tab":
		return '\t', nil
	}
	if len(s) != 1 {
		return 0, ErrDelimiterText
	}
	return s[0], nil
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
	long       bool   // the key is a long field, not yet decoded: see longField
	longKey    quotedField
	nextQuote  int // the first quote at or after pos, or where the search for one ended (see quoteFrom)
	limit      int // no record starting at or past it is read

	blanks int64 // blank lines skipped so far

	comp *composite // the key's columns, for a composite key (see InitComposite)
}

// New returns a scanner over data that decodes field keyCol (0-based) of
// each record, separated by delim. A UTF-8 byte order mark at the start of
// data is skipped.
func New(data []byte, delim byte, keyCol int) (*Scanner, error) {
	s := new(Scanner)
	if err := s.Init(data, delim, keyCol); err != nil {
		return nil, err
	}
	s.Reset(0)
	return s, nil
}

// Init makes s a scanner like [New] returns, for callers that keep a
// Scanner by value, except that it does not read data: call Reset(0) to
// skip a byte order mark before Next. A lookup, which reads records [Scanner.At]
// their offsets, then does not touch the first page of a file that may not
// be in memory.
func (s *Scanner) Init(data []byte, delim byte, keyCol int) error {
	if err := CheckDelimiter(delim); err != nil {
		return err
	}
	if keyCol < 0 {
		return ErrBadColumn
	}
	*s = Scanner{data: data, delim: delim, keyCol: keyCol, scratch: s.scratch[:0], limit: math.MaxInt, nextQuote: -1}
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
	s.start, s.end, s.key, s.hasKey, s.long = pos, pos, nil, false, false
}

// Next advances to the next record. It returns false at the end of the data,
// and before a record that starts at or past the limit (see
// [Scanner.SetLimit]).
func (s *Scanner) Next() bool {
	i, blanks := s.skipBlanks(s.pos) // up to the limit
	s.blanks += blanks
	if i >= s.limit {
		s.pos = i
		return false
	}
	if i >= len(s.data) {
		s.none(i)
		return false
	}
	s.start = i
	// Most records hold no quote at all: then a record is a line and its
	// fields are what lies between delimiters. The position of the next
	// quote in the data tells, for the price of one search per quote.
	if s.nextQuote < i {
		s.nextQuote = s.quoteFrom(i)
	}
	nl := indexFrom(s.data, i, '\n')
	switch {
	case s.comp != nil && nl < s.nextQuote:
		s.plainComposite(i, nl)
	case s.comp != nil:
		s.quotedComposite(i, s.nextQuote)
	case nl < s.nextQuote:
		s.plainRecord(i, nl)
	default:
		s.quotedRecord(i, s.nextQuote)
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
	nl := indexFrom(s.data, i, '\n')
	plain := bytes.IndexByte(s.data[i:nl], quote) < 0
	switch {
	case s.comp != nil && plain:
		s.plainComposite(i, nl)
	case s.comp != nil:
		s.compositeRecord(i)
	case plain:
		s.plainRecord(i, nl)
	default:
		s.quotedRecord(i, -1)
	}
	return true
}

// quoteLookahead is how far past its limit a scanner searches for the next
// quote, for the record that crosses the limit. A variable so that tests
// can shorten it.
var quoteLookahead = 64 << 10

// quoteFrom returns the offset of the first quote at or after i, or, when
// there is none, where the search ended: the end of the data, or a little
// past the limit. Either way data[i:quoteFrom(i)] holds no quote. Bounding
// the search keeps a scan of a small range of a large quote-free file
// small: a parallel scan has thousands of them.
func (s *Scanner) quoteFrom(i int) int {
	end := len(s.data)
	if s.limit < end-quoteLookahead {
		end = max(s.limit, i) + quoteLookahead
	}
	if j := bytes.IndexByte(s.data[i:end], quote); j >= 0 {
		return i + j
	}
	return end
}

// skipBlanks returns the first offset at or after i that does not start a
// blank line, or the first at or past the limit, and the number of blank
// lines skipped. The blank lines that start before the limit are the
// scanner's; the others belong to whoever scans on from there.
func (s *Scanner) skipBlanks(i int) (int, int64) { return skipBlankLines(s.data, i, s.limit) }

// skipBlankLines returns the first offset at or after i that does not start
// a blank line (\n or \r\n), or the first at or past limit, and the number
// of blank lines skipped.
func skipBlankLines(data []byte, i, limit int) (int, int64) {
	var n int64
	for i < len(data) && i < limit {
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

// LimitOne makes the next record the last one Next reads: the scanner then
// searches for quotes no further than it needs to past that record's start
// (see quoteFrom), instead of to the end of the data. Reading a header this
// way touches only its pages, not the whole of a file without quotes.
func (s *Scanner) LimitOne() {
	i, _ := skipBlankLines(s.data, s.pos, s.limit)
	s.limit = i + 1
}

// Pos returns where the scan goes on: just past the last record read, or
// past the blank lines after it that start before the limit.
func (s *Scanner) Pos() int { return s.pos }

// none leaves the scanner at the end of the data, on no record.
func (s *Scanner) none(i int) {
	s.pos, s.start, s.end, s.key, s.hasKey, s.terminated, s.long = i, i, i, nil, false, false, false
}

// quotedRecord reads the record starting at i with the quote-aware search.
// q is where the record's first quote is, when the caller knows it, with no
// newline before it; else -1.
func (s *Scanner) quotedRecord(i, q int) {
	data, delim := s.data, s.delim
	col := 0
	if q > i && q < len(data) && data[q] == quote {
		// The fields before the first quote are plain. When the key field
		// ends before it, the key is found as in a plain record, and only
		// the rest of the record needs the quote-aware search; otherwise
		// that search starts at the field the quote is in.
		start, stop, short := nthField(data, i, q, delim, s.keyCol)
		if short == 0 && stop < q {
			s.key, s.hasKey, s.long = data[start:stop], true, false
			s.end, s.terminated = recordEnd(data, stop+1, delim)
			s.pos = s.end
			return
		}
		col, i = s.keyCol-short, start
	}
	for ; col < s.keyCol; col++ {
		e := skipField(data, i, delim)
		if e >= len(data) || data[e] == '\n' { // too short to have the key
			s.setEnd(e)
			s.key, s.hasKey, s.long = nil, false, false
			return
		}
		i = e + 1
	}
	e, key, scratch, f, long := decodeField(data, i, delim, s.scratch, longField)
	s.key, s.hasKey, s.scratch, s.long, s.longKey = key, true, scratch, long, f
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
	start, end, short := nthField(s.data, i, nl, s.delim, s.keyCol)
	ok := short == 0
	s.key, s.hasKey, s.long = nil, ok, false
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
// call to Next or Reset. A key is usually a slice of the data; one that
// needs unescaping is built in a buffer the scanner reuses, and a long one
// of those (see [Scanner.LongKey]) only when Key is called.
func (s *Scanner) Key() ([]byte, bool) {
	if s.long && s.comp != nil {
		s.buildComposite()
	} else if s.long {
		s.decodeLong()
	}
	return s.key, s.hasKey
}

// decodeLong builds the current key, a long one, in the scratch buffer.
func (s *Scanner) decodeLong() {
	s.scratch = s.longKey.appendTo(s.scratch[:0])
	s.key, s.long = s.scratch, false
}

// LongKey reports whether the current key is longer than 64 KiB and needs
// unescaping to be decoded, so that [Scanner.Key] would build a copy of
// it. A caller that only hashes keys streams such a key with
// [Scanner.WriteKey] instead, in fixed memory however long the field.
func (s *Scanner) LongKey() bool { return s.long }

// WriteKey writes the current record's decoded key to w, in pieces and
// without building it, and returns the first error from w. It writes
// nothing when the record has no key.
func (s *Scanner) WriteKey(w io.Writer) error {
	if s.comp != nil && s.hasKey {
		return s.writeComposite(w)
	}
	if s.long {
		var err error
		s.scratch, err = s.longKey.writeTo(w, s.scratch)
		return err
	}
	if !s.hasKey {
		return nil
	}
	_, err := w.Write(s.key)
	return err
}

// Blanks returns the number of blank lines skipped so far.
func (s *Scanner) Blanks() int64 { return s.blanks }
