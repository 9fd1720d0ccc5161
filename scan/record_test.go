package scan

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAppendRecord: the bytes of a record: fields as they are, separated
// by the delimiter, except that a field holding the delimiter, a quote, \r
// or \n is quoted with its quotes doubled, and a record of one empty field
// is "" (unquoted it would be a blank line); dst is appended to.
func TestAppendRecord(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields []string
		delim  byte
		want   string
	}{
		{"Plain", []string{"a", "b", "c"}, ',', "a,b,c"},
		{"One", []string{"user"}, ',', "user"},
		{"LoneEmpty", []string{""}, ',', `""`},
		{"LoneEmptyTab", []string{""}, '\t', `""`},
		{"TwoEmpty", []string{"", ""}, ',', ","},
		{"EmptyFirst", []string{"", "a"}, ',', ",a"},
		{"EmptyLast", []string{"a", ""}, ',', "a,"},
		{"Delimiter", []string{"a,b", "c"}, ',', `"a,b",c`},
		{"OtherDelimiterPlain", []string{"a,b", "c;d"}, ';', `a,b;"c;d"`},
		{"Tab", []string{"a\tb", "c d"}, '\t', "\"a\tb\"\tc d"},
		{"Quote", []string{`say "hi"`}, ',', `"say ""hi"""`},
		{"LoneQuote", []string{`"`}, ',', `""""`},
		{"QuoteInside", []string{`a"b`, "c"}, ',', `"a""b",c`},
		{"Newline", []string{"a\nb", "c"}, ',', "\"a\nb\",c"},
		{"CR", []string{"a\r", "b"}, ',', "\"a\r\",b"},
		{"CRLF", []string{"a\r\nb"}, ',', "\"a\r\nb\""},
		{"Spaces", []string{" a ", " "}, ',', " a , "},
		{"NUL", []string{"a\x00b"}, ',', "a\x00b"},
		{"NULDelimiter", []string{"a\x00b", "c"}, 0, "\"a\x00b\"\x00c"},
		{"LetterDelimiter", []string{"bab", "c"}, 'a', "\"bab\"ac"},
		{"NoFields", nil, ',', ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fields [][]byte
			for _, f := range c.fields {
				fields = append(fields, []byte(f))
			}
			if got := AppendRecord(nil, fields, c.delim); string(got) != c.want {
				t.Errorf("AppendRecord(%q, %q) = %q, want %q", c.fields, c.delim, got, c.want)
			}
			dst := []byte("x\n")
			if got := AppendRecord(dst, fields, c.delim); string(got) != "x\n"+c.want {
				t.Errorf("AppendRecord(%q, %q, %q) = %q, want %q", dst, c.fields, c.delim, got, "x\n"+c.want)
			}
		})
	}
}

// TestAppendRecordLoneEmptyIsARecord: a record of one empty field, written
// and read back, is a record whose field is empty, not a blank line.
func TestAppendRecordLoneEmptyIsARecord(t *testing.T) {
	data := AppendRecord(nil, [][]byte{{}}, ',')
	data = append(data, '\n')
	data = AppendRecord(data, [][]byte{[]byte("a")}, ',')
	data = append(data, '\n')
	s, err := New(data, ',', 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for s.Next() {
		k, ok := s.Key()
		if !ok {
			t.Fatalf("record at %d has no key", s.Start())
		}
		keys = append(keys, string(k))
	}
	if len(keys) != 2 || keys[0] != "" || keys[1] != "a" || s.Blanks() != 0 {
		t.Fatalf("%q reads as keys %q and %d blank lines, want \"\" and \"a\", none blank", data, keys, s.Blanks())
	}
}

// recordDelims are the delimiters the round trip is tried with: the
// usual ones and unusual bytes that are allowed, one of them a BOM's.
var recordDelims = []byte{',', ';', '\t', '|', ' ', 0, 'a', 0xEF}

// randomFields returns 1 to 6 fields of bytes that matter to the dialect:
// the delimiter, quotes, \r, \n, empty fields, a BOM's bytes.
func randomFields(r *rand.Rand, delim byte) [][]byte {
	pieces := []string{string(delim), `"`, `""`, "\r", "\n", "\r\n", "a", " ", ",", ";", "\t", "\x00", "\xef\xbb\xbf", "\xbb\xbf", "é"}
	fields := make([][]byte, 1+r.IntN(6))
	for i := range fields {
		fields[i] = []byte{}
		if r.IntN(4) == 0 {
			continue // empty
		}
		for range 1 + r.IntN(5) {
			fields[i] = append(fields[i], pieces[r.IntN(len(pieces))]...)
		}
	}
	return fields
}

// TestAppendRecordRoundTrip: random records, each written by AppendRecord
// and ended with "\n", read back by Fields, the reference parser and the
// scanner (at every key column) as exactly the fields written; at the start
// of the data only when they do not begin with a BOM's bytes.
func TestAppendRecordRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 7))
	for range 20000 {
		delim := recordDelims[r.IntN(len(recordDelims))]
		checkRecordRoundTrip(t, randomFields(r, delim), delim)
	}
}

// FuzzAppendRecord: the round trip of TestAppendRecordRoundTrip, for the
// fields data split at sep.
func FuzzAppendRecord(f *testing.F) {
	f.Add([]byte("a,b|c\"d|"), byte('|'), byte(','))
	f.Add([]byte(""), byte(0), byte(','))
	f.Add([]byte("x\r\ny\x00\"\"\x00\r\x00"), byte(0), byte(';'))
	f.Add([]byte("\xef\xbb\xbfa|b"), byte('|'), byte(','))
	f.Add([]byte("|\xbb\xbf|\n"), byte('|'), byte(0xEF))
	f.Add([]byte("\"a\"b\tc\t\t"), byte('\t'), byte('\t'))
	f.Add([]byte("0p"), byte(0), byte('p'))
	f.Fuzz(func(t *testing.T, data []byte, sep, delim byte) {
		if CheckDelimiter(delim) != nil {
			return
		}
		checkRecordRoundTrip(t, bytes.Split(data, []byte{sep}), delim)
	})
}

// checkRecordRoundTrip writes fields with AppendRecord after another
// record ("p"), twice, and reads the data back with Fields, refParse and the
// scanner: three records, the last two with exactly fields. It reads the
// record alone at the start of the data too, unless it begins with the
// bytes of a BOM, which the dialect skips there.
func checkRecordRoundTrip(t *testing.T, fields [][]byte, delim byte) {
	t.Helper()
	first := append(AppendRecord(nil, [][]byte{[]byte("p")}, delim), '\n') // "p" is quoted if it is the delimiter
	data := AppendRecord(bytes.Clone(first), fields, delim)
	if !bytes.Equal(data[:len(first)], first) {
		t.Fatalf("AppendRecord(%q, %q, %q) changed dst: %q", first, fields, delim, data)
	}
	line := append(bytes.Clone(data[len(first):]), '\n')
	data = append(append(data, '\n'), line...)

	got, end, terminated := Fields(line, 0, delim)
	if !slices.EqualFunc(got, fields, bytes.Equal) || end != len(line) || !terminated {
		t.Fatalf("AppendRecord(%q, %q) = %q, read by Fields as %q, end %d of %d, terminated %v",
			fields, delim, line, got, end, len(line), terminated)
	}
	want := []refRecord{
		{start: 0, end: len(first), fields: []string{"p"}, terminated: true},
		{start: len(first), end: len(first) + len(line), fields: strs(fields), terminated: true},
		{start: len(first) + len(line), end: len(data), fields: strs(fields), terminated: true},
	}
	checkRecords(t, data, delim, want)
	if !bytes.HasPrefix(line, BOM) {
		checkRecords(t, line, delim, []refRecord{{start: 0, end: len(line), fields: strs(fields), terminated: true}})
	}
}

// checkRecords holds the reference parser and the scanner, with each key
// column and one past the last, to the records want of data.
func checkRecords(t *testing.T, data []byte, delim byte, want []refRecord) {
	t.Helper()
	recs, blanks := refParse(data, delim)
	if blanks != 0 || len(recs) != len(want) {
		t.Fatalf("%q (delimiter %q): the reference reads %d records and %d blank lines, want %d records",
			data, delim, len(recs), blanks, len(want))
	}
	most := 0
	for i, w := range want {
		if g := recs[i]; g.start != w.start || g.end != w.end || !g.terminated || !slices.Equal(g.fields, w.fields) {
			t.Fatalf("%q (delimiter %q): the reference reads record %d as %+v, want %+v", data, delim, i, g, w)
		}
		most = max(most, len(w.fields))
	}
	for k := 0; k <= most; k++ {
		s, err := New(data, delim, k)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if !s.Next() {
				t.Fatalf("%q (delimiter %q, key %d): the scanner ends after %d records, want %d", data, delim, k, i, len(want))
			}
			key, ok := s.Key()
			wantOK := k < len(w.fields)
			if s.Start() != w.start || s.End() != w.end || !s.Terminated() || ok != wantOK || wantOK && string(key) != w.fields[k] {
				t.Fatalf("%q (delimiter %q, key %d): record %d is [%d, %d) with key %q %v, want [%d, %d) with %q",
					data, delim, k, i, s.Start(), s.End(), key, ok, w.start, w.end, w.fields)
			}
		}
		if s.Next() || s.Blanks() != 0 {
			t.Fatalf("%q (delimiter %q, key %d): more than %d records, or %d blank lines", data, delim, k, len(want), s.Blanks())
		}
	}
}

// strs returns fields as strings.
func strs(fields [][]byte) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = string(f)
	}
	return out
}
