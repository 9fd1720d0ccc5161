package scan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

const (
	mark = "§"      // marks where a record starts in a test input
	none = "<none>" // the record has no key field
)

// scanCase is one input with its records marked inline: every record start
// is preceded by mark, which the test strips to compute the expected offsets.
type scanCase struct {
	Name         string
	Input        string
	Delim        byte // ',' when zero
	Key          int
	Keys         []string // the key of each record, or none
	Unterminated bool     // the last record has no terminator
}

var scanCases = []scanCase{
	{Name: "Simple", Input: "§a,b,c\n§d,e,f\n", Key: 1, Keys: []string{"b", "e"}},
	{Name: "FirstColumn", Input: "§a,b\n§c,d\n", Key: 0, Keys: []string{"a", "c"}},
	{Name: "LastColumn", Input: "§a,b\n§c,d\n", Key: 1, Keys: []string{"b", "d"}},
	{Name: "CRLF", Input: "§a,b\r\n§c,d\r\n", Key: 1, Keys: []string{"b", "d"}},
	{Name: "CRLFFirstColumn", Input: "§a\r\n§b\r\n", Key: 0, Keys: []string{"a", "b"}},
	{Name: "LoneCRIsData", Input: "§a,b\rc\n§d,e\r\r\n", Key: 1, Keys: []string{"b\rc", "e\r"}},
	{Name: "QuotedKey", Input: "§1,\"b,c\",x\n§2,\"d\"\n", Key: 1, Keys: []string{"b,c", "d"}},
	{Name: "EscapedQuote", Input: "§1,\"say \"\"hi\"\"\"\n", Key: 1, Keys: []string{"say \"hi\""}},
	{Name: "OnlyEscapedQuote", Input: "§1,\"\"\"\"\n", Key: 1, Keys: []string{"\""}},
	{Name: "EmptyQuoted", Input: "§1,\"\"\n§2,\n", Key: 1, Keys: []string{"", ""}},
	{Name: "TextAfterQuote", Input: "§1,\"x\"y z,w\n", Key: 1, Keys: []string{"xy z"}},
	{Name: "QuotesAfterQuote", Input: "§1,\"x\"y\"z\"\n", Key: 1, Keys: []string{"xy\"z\""}},
	{Name: "TextAfterQuoteCRLF", Input: "§1,\"x\"y\r\n§2,z\n", Key: 1, Keys: []string{"xy", "z"}},
	{Name: "QuotedKeyCRLF", Input: "§1,\"x\"\r\n§2,\"y\"\r\n", Key: 1, Keys: []string{"x", "y"}},
	{Name: "CRInsideQuotes", Input: "§1,\"x\r\"\n", Key: 1, Keys: []string{"x\r"}},
	{Name: "LiteralQuote", Input: "§1,b\"c\n§2,\"d\n", Key: 1, Keys: []string{"b\"c", "d\n"}, Unterminated: true},
	{Name: "NewlineInQuotes", Input: "§1,\"two\nlines\",x\n§2,y\n", Key: 1, Keys: []string{"two\nlines", "y"}},
	{Name: "CRLFInQuotedField", Input: "§1,\"a\r\nb\"\r\n§2,c\r\n", Key: 1, Keys: []string{"a\r\nb", "c"}},
	{Name: "NewlineInQuotesAfterKey", Input: "§1,k,\"x\ny\",\"z\n\"\n§2,j\n", Key: 1, Keys: []string{"k", "j"}},
	{Name: "NewlineInQuotesBeforeKey", Input: "§\"x\ny\",k\n§z,j\n", Key: 1, Keys: []string{"k", "j"}},
	{Name: "QuoteMidFieldAfterKey", Input: "§1,k,a\"b\n§2,j,\"c\"\n", Key: 1, Keys: []string{"k", "j"}},
	{Name: "QuotedAfterTrailing", Input: "§1,k,\"a\"b,\"c\nd\"\n§2,j\n", Key: 1, Keys: []string{"k", "j"}},
	{Name: "BOM", Input: "\xEF\xBB\xBF§a,b\n§c,d\n", Key: 0, Keys: []string{"a", "c"}},
	{Name: "BOMQuoted", Input: "\xEF\xBB\xBF§\"a\",b\n", Key: 0, Keys: []string{"a"}},
	{Name: "BlankLines", Input: "\n\r\n§a,b\n\n\n§c,d\n\r\n", Key: 1, Keys: []string{"b", "d"}},
	{Name: "ShortRows", Input: "§a\n§b,c\n§d\n", Key: 1, Keys: []string{none, "c", none}},
	{Name: "EmptyKeyVsShort", Input: "§a,\n§a\n", Key: 1, Keys: []string{"", none}},
	{Name: "ShortQuotedRow", Input: "§\"a\nb\"\n§c,d\n", Key: 1, Keys: []string{none, "d"}},
	{Name: "Unterminated", Input: "§a,b\n§c,d", Key: 1, Keys: []string{"b", "d"}, Unterminated: true},
	{Name: "UnterminatedShort", Input: "§a,b\n§c", Key: 1, Keys: []string{"b", none}, Unterminated: true},
	{Name: "UnterminatedCR", Input: "§a,b\r", Key: 1, Keys: []string{"b\r"}, Unterminated: true},
	{Name: "UnterminatedQuote", Input: "§a,\"b\nc,d\n", Key: 1, Keys: []string{"b\nc,d\n"}, Unterminated: true},
	{Name: "UnterminatedQuoteEscaped", Input: "§a,\"b\"\"", Key: 1, Keys: []string{"b\""}, Unterminated: true},
	{Name: "UnterminatedQuoteAfterKey", Input: "§a,b,\"c\nd,e\n", Key: 1, Keys: []string{"b"}, Unterminated: true},
	{Name: "UnterminatedQuoteBeforeKey", Input: "§\"a,b\n", Key: 1, Keys: []string{none}, Unterminated: true},
	{Name: "QuoteClosesAtEnd", Input: "§a,\"b\"", Key: 1, Keys: []string{"b"}, Unterminated: true},
	{Name: "TabDelimiter", Input: "§a\tb,c\n§\"d\te\"\tf\n", Delim: '\t', Key: 1, Keys: []string{"b,c", "f"}},
	{Name: "SemicolonDelimiter", Input: "§a;\"b;c\";d\n", Delim: ';', Key: 1, Keys: []string{"b;c"}},
	{Name: "PipeKeyThird", Input: "§a|b|c|d\n§e|f\n", Delim: '|', Key: 2, Keys: []string{"c", none}},
	{Name: "Unicode", Input: "§1,ключ\n§2,\"日本,語\"\n", Key: 1, Keys: []string{"ключ", "日本,語"}},
	{Name: "NUL", Input: "§1,a\x00b\n", Key: 1, Keys: []string{"a\x00b"}},
	{Name: "LongFields", Input: "§" + strings.Repeat("x", 100) + "," + strings.Repeat("y", 70) + ",\"" + strings.Repeat("z\n", 40) + "\"\n§1,2\n", Key: 1, Keys: []string{strings.Repeat("y", 70), "2"}},
	{Name: "Empty", Input: "", Key: 0},
	{Name: "OnlyBlank", Input: "\n\r\n\n", Key: 0},
	{Name: "OnlyBOM", Input: "\xEF\xBB\xBF", Key: 0},
}

// splitMarks strips the marks from s and returns the offsets they stood at.
func splitMarks(s string) (string, []int) {
	var offs []int
	var b strings.Builder
	for {
		i := strings.Index(s, mark)
		if i < 0 {
			b.WriteString(s)
			return b.String(), offs
		}
		b.WriteString(s[:i])
		offs = append(offs, b.Len())
		s = s[i+len(mark):]
	}
}

type gotRecord struct {
	start, end int
	key        string
	terminated bool
}

func scanAll(t testing.TB, data []byte, delim byte, key int) []gotRecord {
	s, err := New(data, delim, key)
	if err != nil {
		t.Fatal(err)
	}
	var got []gotRecord
	for s.Next() {
		k, ok := s.Key()
		r := gotRecord{start: s.Start(), end: s.End(), key: string(k), terminated: s.Terminated()}
		if !ok {
			r.key = none
		}
		got = append(got, r)
	}
	return got
}

func TestScanner(t *testing.T) {
	for _, tc := range scanCases {
		t.Run(tc.Name, func(t *testing.T) {
			input, starts := splitMarks(tc.Input)
			delim := tc.Delim
			if delim == 0 {
				delim = ','
			}
			got := scanAll(t, []byte(input), delim, tc.Key)
			if len(got) != len(starts) || len(got) != len(tc.Keys) {
				t.Fatalf("got %d records %+v, want %d starting at %v", len(got), got, len(starts), starts)
			}
			for i, r := range got {
				if r.start != starts[i] {
					t.Errorf("record %d starts at %d, want %d", i, r.start, starts[i])
				}
				if r.key != tc.Keys[i] {
					t.Errorf("record %d key %q, want %q", i, r.key, tc.Keys[i])
				}
				wantEnd := len(input)
				if i+1 < len(starts) {
					wantEnd = starts[i+1]
				}
				if r.end > wantEnd || (i+1 < len(starts) && !r.terminated) {
					t.Errorf("record %d ends at %d (terminated %v), next starts at %d", i, r.end, r.terminated, wantEnd)
				}
				last := i == len(got)-1
				if want := !(last && tc.Unterminated); r.terminated != want {
					t.Errorf("record %d terminated = %v, want %v", i, r.terminated, want)
				}
			}
			checkAgainstRef(t, []byte(input), delim, tc.Key)
		})
	}
}

// checkAgainstRef holds the scanner and Fields to the reference parser,
// with long keys (see longField) as long as usual and with every key
// that needs a copy taken as long.
func checkAgainstRef(t *testing.T, data []byte, delim byte, key int) {
	t.Helper()
	checkRef(t, data, delim, key)
	defer func(n int) { longField = n }(longField)
	longField = 0
	checkRef(t, data, delim, key)
}

func checkRef(t *testing.T, data []byte, delim byte, key int) {
	t.Helper()
	want, wantBlanks := refParse(data, delim)
	s, err := New(data, delim, key)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for s.Next() {
		if n >= len(want) {
			t.Fatalf("scanner found a record at %d after the reference's %d records", s.Start(), len(want))
		}
		w := want[n]
		wantKey, wantOK := "", key < len(w.fields)
		if wantOK {
			wantKey = w.fields[key]
		}
		var streamed bytes.Buffer
		long := s.LongKey()
		if err := s.WriteKey(&streamed); err != nil || streamed.String() != wantKey {
			t.Fatalf("record %d: WriteKey wrote %q (err %v, long %v), reference key %q\ninput %q", n, streamed.Bytes(), err, long, wantKey, data)
		}
		if long && len(wantKey) <= longField {
			t.Fatalf("record %d: key %q is long, but not longer than %d bytes\ninput %q", n, wantKey, longField, data)
		}
		k, ok := s.Key()
		if s.Start() != w.start || s.End() != w.end || s.Terminated() != w.terminated || ok != wantOK || string(k) != wantKey {
			t.Fatalf("record %d: scanner [%d,%d) term=%v key=%q/%v; reference [%d,%d) term=%v key=%q/%v\ninput %q",
				n, s.Start(), s.End(), s.Terminated(), k, ok, w.start, w.end, w.terminated, wantKey, wantOK, data)
		}
		var one Scanner
		if err := one.Init(data, delim, key); err != nil {
			t.Fatal(err)
		}
		if !one.At(w.start) {
			t.Fatalf("At(%d) found no record\ninput %q", w.start, data)
		}
		if k1, ok1 := one.Key(); one.Start() != w.start || one.End() != w.end || one.Terminated() != w.terminated || ok1 != wantOK || string(k1) != wantKey {
			t.Fatalf("At(%d): [%d,%d) term=%v key=%q/%v; reference [%d,%d) term=%v key=%q/%v\ninput %q",
				w.start, one.Start(), one.End(), one.Terminated(), k1, ok1, w.start, w.end, w.terminated, wantKey, wantOK, data)
		}
		fields, end, term := Fields(data, w.start, delim)
		if fmt.Sprintf("%q", fields) != fmt.Sprintf("%q", toBytes(w.fields)) || end != w.end || term != w.terminated {
			t.Fatalf("record %d: Fields = %q end %d term %v; reference %q end %d term %v\ninput %q",
				n, fields, end, term, w.fields, w.end, w.terminated, data)
		}
		n++
	}
	if n != len(want) {
		t.Fatalf("scanner found %d records, reference %d\ninput %q", n, len(want), data)
	}
	if s.Blanks() != int64(wantBlanks) {
		t.Fatalf("scanner skipped %d blank lines, reference %d\ninput %q", s.Blanks(), wantBlanks, data)
	}
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func TestReset(t *testing.T) {
	data := []byte("\xEF\xBB\xBFh1,h2\n1,\"a\nb\"\n\n2,c\n")
	s, err := New(data, ',', 1)
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	for s.Next() {
		starts = append(starts, s.Start())
	}
	for _, off := range starts {
		s.Reset(off)
		if !s.Next() || s.Start() != off {
			t.Fatalf("Reset(%d): next record starts at %d", off, s.Start())
		}
	}
	s.Reset(0)
	if !s.Next() || s.Start() != 3 {
		t.Fatalf("Reset(0) did not skip the BOM: record at %d", s.Start())
	}
	s.Reset(len(data))
	if s.Next() {
		t.Fatal("Reset(len) found a record")
	}
}

func TestNewRejects(t *testing.T) {
	for _, d := range []byte{'"', '\r', '\n'} {
		if _, err := New(nil, d, 0); err == nil {
			t.Errorf("delimiter %q accepted", d)
		}
	}
	if _, err := New(nil, ',', -1); err == nil {
		t.Error("negative key column accepted")
	}
}

func TestNoAllocs(t *testing.T) {
	data := bytes.Repeat([]byte("123,\"k\"\"ey\",x,\"a,b\"\n456,plain,y,z\n"), 100)
	s, err := New(data, ',', 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Next() // the first unescaped key grows the scratch buffer once
	allocs := testing.AllocsPerRun(10, func() {
		s.Reset(0)
		for s.Next() {
		}
	})
	if allocs != 0 {
		t.Fatalf("a pass over %d bytes allocated %.0f times", len(data), allocs)
	}
}

// checkChunked scans data in chunks of size bytes, each from where the last
// one stopped and up to a limit, as a parallel build stitches them, and
// holds the result to one scan of the whole; with the usual search for the
// next quote and with one that gives up a byte or two past the limit.
func checkChunked(t *testing.T, data []byte, delim byte, key, size int) {
	t.Helper()
	defer func(n int) { quoteLookahead = n }(quoteLookahead)
	for _, quoteLookahead = range []int{64 << 10, 0, 1, 2} {
		checkChunks(t, data, delim, key, size)
	}
}

func checkChunks(t *testing.T, data []byte, delim byte, key, size int) {
	t.Helper()
	want := scanAll(t, data, delim, key)
	whole, _ := New(data, delim, key)
	for whole.Next() {
	}
	var got []gotRecord
	var blanks int64
	pos := 0
	for b := size; pos < len(data) || b <= len(data); b += size {
		s, _ := New(data, delim, key)
		s.Reset(pos)
		limit := b
		if b >= len(data) {
			limit = len(data) + 1 // the last chunk takes everything
		}
		s.SetLimit(limit)
		for s.Next() {
			k, ok := s.Key()
			r := gotRecord{start: s.Start(), end: s.End(), key: string(k), terminated: s.Terminated()}
			if !ok {
				r.key = none
			}
			if r.start >= limit || (len(got) > 0 && r.start < got[len(got)-1].end) {
				t.Fatalf("chunk ending at %d read a record at %d", limit, r.start)
			}
			got = append(got, r)
		}
		blanks += s.Blanks()
		pos = s.Pos()
		if limit > len(data) {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || blanks != whole.Blanks() {
		t.Fatalf("in chunks of %d: %v, %d blanks; whole: %v, %d blanks\ninput %q", size, got, blanks, want, whole.Blanks(), data)
	}
}

func TestChunked(t *testing.T) {
	for _, tc := range scanCases {
		input, _ := splitMarks(tc.Input)
		delim := tc.Delim
		if delim == 0 {
			delim = ','
		}
		for size := 1; size <= 12; size++ {
			checkChunked(t, []byte(input), delim, tc.Key, size)
		}
	}
}

func TestLoneCR(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"a,b\r1,2\r", 3},
		{"a,b\r\n1,2\r\n", -1},
		{"a,b\n", -1},
		{`"a` + "\r" + `b",c` + "\r", 7}, // the CR inside quotes is data
		{`"a` + "\r", -1},                // an unterminated quote runs to the end
		{"a\"\rb,c\n", 2},                // a quote inside a field opens nothing
		{"x,\"y\"\r", 5},
		{"abc\r", 3},
	} {
		if got := LoneCR([]byte(c.in), 0, len(c.in), ','); got != c.want {
			t.Errorf("LoneCR(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestLimitOne: a scanner limited to one record reads the first record as
// an unlimited one does, whatever lies before it (a byte order mark, blank
// lines) and however far its quotes are, and then no other; and it does
// not search the rest of the data for a quote.
func TestLimitOne(t *testing.T) {
	defer func(n int) { quoteLookahead = n }(quoteLookahead)
	for _, data := range []string{
		"a,b\n\"c\",d\n",
		"\r\n\n\nname,\"x\ny\",z\r\nrest",
		"\xef\xbb\xbf\n" + strings.Repeat("k", 50) + ",\"q\"\n1,2\n",
		strings.Repeat("x,", 40) + "\"late,quote\"\n2\n",
		"\n\r\n",
		"only",
	} {
		for _, quoteLookahead = range []int{64 << 10, 0, 1, 7} {
			want, _ := New([]byte(data), ',', 1)
			wantOK := want.Next()
			s, _ := New([]byte(data), ',', 1)
			s.LimitOne()
			if ok := s.Next(); ok != wantOK || s.Start() != want.Start() || s.End() != want.End() || s.Terminated() != want.Terminated() {
				t.Fatalf("%q, lookahead %d: record [%d, %d) %v, want [%d, %d) %v", data, quoteLookahead, s.Start(), s.End(), ok, want.Start(), want.End(), wantOK)
			}
			k, kok := s.Key()
			wk, wkok := want.Key()
			if kok != wkok || string(k) != string(wk) || s.Blanks() != want.Blanks() {
				t.Fatalf("%q: key %q %v, want %q %v", data, k, kok, wk, wkok)
			}
			if s.Next() {
				t.Fatalf("%q: a second record after LimitOne", data)
			}
		}
	}
	// The quote search stops near the record: a quote-free file is not read through.
	data := []byte("h1,h2\n" + strings.Repeat("1,2\n", 100000))
	quoteLookahead = 64 << 10
	s, _ := New(data, ',', 0)
	s.LimitOne()
	s.Next()
	if s.nextQuote > 6+1+quoteLookahead {
		t.Fatalf("the quote search went to %d of %d bytes", s.nextQuote, len(data))
	}
}

// TestUnclosed: a record ends inside quotes exactly when a newline and
// another record appended to it stay in its last field.
func TestUnclosed(t *testing.T) {
	for _, c := range []struct {
		rec  string
		want bool
	}{
		{`2,"open`, true},
		{"2,\"open\n", true},
		{`"a""`, true},
		{`ab"c`, false},
		{`a,b"`, false},
		{`"a"b`, false},
		{`x,"y",z`, false},
		{`x,"y""z"`, false},
		{`"`, true},
		{``, false},
		{`x;"y`, false}, // ',' is not this record's delimiter: the quote is inside a field
	} {
		if got := Unclosed([]byte(c.rec), 0, ','); got != c.want {
			t.Errorf("Unclosed(%q) = %v, want %v", c.rec, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(38, 2))
	for range 20000 {
		rec := make([]byte, r.IntN(8))
		for i := range rec {
			rec[i] = "a,\"\n"[r.IntN(4)]
		}
		if _, _, term := Fields(rec, 0, ','); term {
			continue // not one unterminated record
		}
		_, end, _ := Fields(append(bytes.Clone(rec), "\nz"...), 0, ',')
		if got, want := Unclosed(rec, 0, ','), end > len(rec)+1; got != want {
			t.Fatalf("Unclosed(%q) = %v; a record appended after a newline is in its field: %v", rec, got, want)
		}
	}
}
