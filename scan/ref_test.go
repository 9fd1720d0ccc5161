package scan

// refRecord is a record as the reference parser sees it.
type refRecord struct {
	start, end int
	fields     []string
	terminated bool
}

// refParse is an independent, deliberately naive reading of the dialect in
// the package documentation: one byte at a time through a state machine, the
// way Python's csv module is written. The fuzz test holds the fast scanner
// to it.
func refParse(data []byte, delim byte) (recs []refRecord, blanks int) {
	const (
		recordStart = iota
		fieldStart
		unquoted
		quoted
		afterQuote // after a closing quote, or an escaped-quote candidate
		trailing   // text after the closing quote
	)
	i := 0
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		i = 3
	}
	state := recordStart
	var rec refRecord
	var field []byte
	rawCR := false // the last byte appended to field was a \r outside quotes
	endField := func() {
		rec.fields = append(rec.fields, string(field))
		field, rawCR = nil, false
	}
	endRecord := func(end int, terminated bool) {
		rec.end, rec.terminated = end, terminated
		recs = append(recs, rec)
		rec = refRecord{}
		state = recordStart
	}
	for ; i < len(data); i++ {
		c := data[i]
		switch state {
		case recordStart:
			if c == '\n' {
				blanks++
				continue
			}
			if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				blanks++
				i++
				continue
			}
			rec.start = i
			state = fieldStart
			i--
		case fieldStart:
			switch c {
			case quote:
				state = quoted
			case delim:
				endField()
			case '\n':
				endField()
				endRecord(i+1, true)
			default:
				field = append(field, c)
				rawCR = c == '\r'
				state = unquoted
			}
		case unquoted, trailing:
			switch c {
			case delim:
				endField()
				state = fieldStart
			case '\n':
				if rawCR {
					field = field[:len(field)-1]
				}
				endField()
				endRecord(i+1, true)
			default:
				field = append(field, c)
				rawCR = c == '\r'
			}
		case quoted:
			if c == quote {
				state = afterQuote
			} else {
				field = append(field, c)
			}
		case afterQuote:
			switch c {
			case quote:
				field = append(field, quote)
				state = quoted
			case delim:
				endField()
				state = fieldStart
			case '\n':
				endField()
				endRecord(i+1, true)
			default:
				field = append(field, c)
				rawCR = c == '\r'
				state = trailing
			}
		}
	}
	if state != recordStart {
		endField()
		endRecord(len(data), false)
	}
	return recs, blanks
}
