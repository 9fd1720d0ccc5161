package main

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gen returns the CSV for the default config changed by edit.
func gen(t testing.TB, edit func(*config)) []byte {
	t.Helper()
	c := defaultConfig()
	if edit != nil {
		edit(&c)
	}
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	l := newLayout(c)
	var b bytes.Buffer
	s, err := generate(&b, &l)
	if err != nil {
		t.Fatal(err)
	}
	if s.bytes != int64(b.Len()) {
		t.Fatalf("summary says %d bytes, wrote %d", s.bytes, b.Len())
	}
	return b.Bytes()
}

// parse reads data with encoding/csv (strict quotes, every record the same field count).
func parse(t testing.TB, data []byte) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = false
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// manyChunks is a row count that spans several chunks and ends inside one.
const manyChunks = 3*chunkRows + 123

func TestSameSeedSameBytesAnyThreads(t *testing.T) {
	want := gen(t, func(c *config) { c.rows = manyChunks; c.multiline = 0.01; c.threads = 1 })
	for _, threads := range []int{2, 3, 8} {
		got := gen(t, func(c *config) { c.rows = manyChunks; c.multiline = 0.01; c.threads = threads })
		if !bytes.Equal(got, want) {
			t.Errorf("-threads %d: output differs from -threads 1", threads)
		}
	}
	other := gen(t, func(c *config) { c.rows = manyChunks; c.multiline = 0.01; c.seed = 2 })
	if bytes.Equal(other, want) {
		t.Error("-seed 2 gives the same output as -seed 1")
	}
}

var (
	tsRE     = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`)
	amountRE = regexp.MustCompile(`^[1-9]\d{0,2}\.\d\d$`)
)

// checkRecords checks the header and every row of recs against l, and returns the rows.
func checkRecords(t *testing.T, l *layout, recs [][]string) [][]string {
	t.Helper()
	if len(recs) == 0 || strings.Join(recs[0], ",") != header {
		t.Fatalf("header = %q, want %q", recs[:min(1, len(recs))], header)
	}
	rows := recs[1:]
	if int64(len(rows)) != l.rows {
		t.Fatalf("%d rows, want %d", len(rows), l.rows)
	}
	comments := slices.Concat([]string{""}, words, quotedValues, multilineValues)
	prev := time.Time{}
	for i, r := range rows {
		if len(r) != 6 {
			t.Fatalf("row %d has %d fields: %q", i+1, len(r), r)
		}
		if r[0] != strconv.Itoa(i+1) {
			t.Fatalf("row %d: order_id %q", i+1, r[0])
		}
		user, err := strconv.ParseUint(r[1], 10, 64)
		if err != nil || user < 1 || user >= l.missingID() {
			t.Fatalf("row %d: user_id %q outside 1..%d", i+1, r[1], l.missingID()-1)
		}
		ts, err := time.Parse("2006-01-02T15:04:05", r[2])
		if err != nil || !tsRE.MatchString(r[2]) || !ts.After(prev) {
			t.Fatalf("row %d: ts %q is not a timestamp after %v", i+1, r[2], prev)
		}
		prev = ts
		if !amountRE.MatchString(r[3]) {
			t.Fatalf("row %d: amount %q", i+1, r[3])
		}
		if !slices.Contains(statuses[:], r[4]) {
			t.Fatalf("row %d: status %q", i+1, r[4])
		}
		if !slices.Contains(comments, r[5]) {
			t.Fatalf("row %d: comment %q is none of the known ones", i+1, r[5])
		}
	}
	return rows
}

func TestRowsParseWithEncodingCSV(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*config)
	}{
		{"Default", nil},
		{"Empty", func(c *config) { c.rows = 0 }},
		{"OneRow", func(c *config) { c.rows = 1 }},
		{"ManyChunksMultiline", func(c *config) { c.rows = manyChunks; c.multiline = 0.05 }},
		{"CRLFMultiline", func(c *config) { c.rows = 5000; c.multiline = 0.1; c.crlf = true }},
		{"Unterminated", func(c *config) { c.rows = 100; c.unterminated = true }},
		{"NoHeavyUsers", func(c *config) { c.heavyUsers = 0 }},
		{"AllHeavy", func(c *config) { c.heavyFrac = 1; c.heavyUsers = 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaultConfig()
			if tc.edit != nil {
				tc.edit(&c)
			}
			l := newLayout(c)
			checkRecords(t, &l, parse(t, gen(t, tc.edit)))
		})
	}
}

func TestHeavyShare(t *testing.T) {
	const rows = 200_000
	l := newLayout(config{rows: rows, seed: 1, heavyUsers: 1000, heavyFrac: 0.2, rowsPerUser: 8})
	if l.ordinaryFirst != 1001 || l.ordinaryCount != 20_000 {
		t.Fatalf("ordinary ids %d + [0, %d), want 1001 + [0, 20000)", l.ordinaryFirst, l.ordinaryCount)
	}
	recs := parse(t, gen(t, func(c *config) { c.rows = rows }))[1:]
	heavy := map[string]int{}
	ordinary := map[string]int{}
	for _, r := range recs {
		if id, _ := strconv.Atoi(r[1]); id <= 1000 {
			heavy[r[1]]++
		} else {
			ordinary[r[1]]++
		}
	}
	nHeavy := 0
	for _, n := range heavy {
		nHeavy += n
	}
	if share := float64(nHeavy) / rows; share < 0.19 || share > 0.21 {
		t.Errorf("heavy share %.4f, want 0.2 ± 0.01", share)
	}
	if len(heavy) < 990 {
		t.Errorf("%d distinct heavy users, want nearly all of 1000", len(heavy))
	}
	// About 8 rows per ordinary user: all but e^-8 of the 20000 ids occur.
	if len(ordinary) < 19_900 {
		t.Errorf("%d distinct ordinary users, want about 20000", len(ordinary))
	}
}

func TestOptionsChangeOnlyWhatTheySay(t *testing.T) {
	base := func(c *config) { c.rows = 3000; c.multiline = 0.05 }
	plain := gen(t, base)
	with := func(edit func(*config)) []byte {
		return gen(t, func(c *config) { base(c); edit(c) })
	}
	if bytes.Contains(plain, []byte("\r")) {
		t.Error("LF output holds a \\r")
	}
	crlf := with(func(c *config) { c.crlf = true })
	if !bytes.Equal(crlf, bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n"))) {
		t.Error("-crlf is not the LF output with every \\n turned into \\r\\n")
	}
	if got := with(func(c *config) { c.bom = true }); !bytes.Equal(got, append([]byte(bom), plain...)) {
		t.Error("-bom is not a BOM followed by the plain output")
	}
	if got := with(func(c *config) { c.unterminated = true }); !bytes.Equal(got, plain[:len(plain)-1]) {
		t.Error("-unterminated is not the plain output without its last \\n")
	}
	all := with(func(c *config) { c.crlf, c.bom, c.unterminated = true, true, true })
	if !bytes.Equal(all, append([]byte(bom), crlf[:len(crlf)-2]...)) {
		t.Error("-crlf -bom -unterminated together are not the sum of their parts")
	}
	if got := gen(t, func(c *config) { c.rows = 0; c.unterminated = true }); string(got) != header {
		t.Errorf("-rows 0 -unterminated = %q, want the bare header", got)
	}
}

func TestMultilineChangesOnlyComments(t *testing.T) {
	const rows, frac = 20_000, 0.05
	flat := parse(t, gen(t, func(c *config) { c.rows = rows }))
	multi := parse(t, gen(t, func(c *config) { c.rows = rows; c.multiline = frac }))
	broken := 0
	for i := range flat {
		if !slices.Equal(flat[i][:5], multi[i][:5]) {
			t.Fatalf("record %d: %q became %q", i, flat[i], multi[i])
		}
		if strings.Contains(flat[i][5], "\n") {
			t.Fatalf("record %d has a line break without -multiline: %q", i, flat[i])
		}
		if strings.Contains(multi[i][5], "\n") {
			broken++
		} else if multi[i][5] != flat[i][5] {
			t.Fatalf("record %d: single-line comment %q became %q", i, flat[i][5], multi[i][5])
		}
	}
	if share := float64(broken) / rows; share < 0.04 || share > 0.06 {
		t.Errorf("%.4f of the rows span lines, want %.2f ± 0.01", share, frac)
	}
}

func TestQuotingIsMinimal(t *testing.T) {
	// QUOTE_MINIMAL quotes a field exactly when it holds the delimiter, a quote or a line break.
	for _, v := range slices.Concat(words, quotedValues, multilineValues) {
		needs := strings.ContainsAny(v, ",\"\r\n")
		if quoted := !slices.Contains(words, v); quoted != needs {
			t.Errorf("comment %q: quoted is %v, QUOTE_MINIMAL quotes it: %v", v, quoted, needs)
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, v := range slices.Concat(quotedValues, multilineValues) {
		b.Reset()
		w.Write([]string{v})
		w.Flush()
		if got, want := quoteField(v)+"\n", b.String(); got != want {
			t.Errorf("quoteField(%q) = %q, encoding/csv writes %q", v, got, want)
		}
	}
}

func BenchmarkFill(b *testing.B) {
	l := newLayout(config{rows: 100_000_000, seed: 1, heavyUsers: 1000, heavyFrac: 0.2, rowsPerUser: 8})
	g := newRowGen(&l)
	c := &chunk{}
	g.fill(c, 1000, chunkRows)
	b.SetBytes(int64(len(c.buf)))
	for i := 0; b.Loop(); i++ {
		g.fill(c, uint64(1000+i), chunkRows)
	}
}

func TestUnixTSChangesOnlyTS(t *testing.T) {
	const rows = 5_000
	iso := parse(t, gen(t, func(c *config) { c.rows = rows; c.multiline = 0.01 }))
	unix := parse(t, gen(t, func(c *config) { c.rows = rows; c.multiline = 0.01; c.unixTS = true }))
	if len(iso) != len(unix) {
		t.Fatalf("%d records with -unix-ts, %d without", len(unix), len(iso))
	}
	for i := 1; i < len(iso); i++ { // record 0 is the header
		a, b := iso[i], unix[i]
		if !slices.Equal(a[:2], b[:2]) || !slices.Equal(a[3:], b[3:]) {
			t.Fatalf("record %d: %q became %q", i, a, b)
		}
		ts, err := time.Parse("2006-01-02T15:04:05", a[2])
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.FormatInt(ts.Unix(), 10); b[2] != want {
			t.Fatalf("record %d: ts %q with -unix-ts, want %s (%s)", i, b[2], want, a[2])
		}
	}
}
