package scan

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFieldBounds: the bounds of a record's first n fields, as written,
// decode to what Fields decodes (quoted fields with escapes, delimiters
// and newlines inside, text after a closing quote, a quote inside an
// unquoted field, a quote that never closes, empty fields); a record of
// fewer fields gives fewer pairs, and dst is appended to.
func TestFieldBounds(t *testing.T) {
	for _, c := range []struct {
		name, rec string
		n         int
		want      []int
	}{
		{"Plain", "a,bc,d", 3, []int{0, 1, 2, 4, 5, 6}},
		{"FirstOnly", "a,bc,d", 1, []int{0, 1}},
		{"Fewer", "a,bc", 5, []int{0, 1, 2, 4}},
		{"Empty", "", 2, []int{0, 0}},
		{"EmptyFields", ",,", 3, []int{0, 0, 1, 1, 2, 2}},
		{"Quoted", `"a,""b",c`, 2, []int{0, 7, 8, 9}},
		{"QuotedNewline", "\"a\nb\",c", 2, []int{0, 5, 6, 7}},
		{"AfterClosingQuote", `"a"x,c`, 2, []int{0, 4, 5, 6}},
		{"QuoteInside", `ab"c,d`, 2, []int{0, 4, 5, 6}},
		{"Unclosed", `x,"open,more`, 3, []int{0, 1, 2, 12}},
		{"None", "a,b", 0, nil},
	} {
		if got := FieldBounds(nil, []byte(c.rec), ',', c.n); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if got := FieldBounds([]int{7}, []byte("a;b"), ';', 2); !slices.Equal(got, []int{7, 0, 1, 2, 3}) {
		t.Errorf("appended: %v", got)
	}
	// Random records: each field's bytes, decoded alone, are Fields' value.
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", ",", `"`, `""`, "\n", "\r", "x y", ";"}
	for range 20000 {
		var rec []byte
		for range r.IntN(12) {
			rec = append(rec, parts[r.IntN(len(parts))]...)
		}
		rec = bytes.TrimRight(rec, "\n") // a record without its terminator
		delim := []byte{',', ';'}[r.IntN(2)]
		fields, end, _ := Fields(rec, 0, delim)
		if end < len(rec) { // a newline outside quotes: two records
			continue
		}
		n := 1 + r.IntN(len(fields)+1)
		b := FieldBounds(nil, rec, delim, n)
		if len(b) != 2*min(n, len(fields)) {
			t.Fatalf("%q, %d fields: %d bounds for %d fields", rec, n, len(b)/2, len(fields))
		}
		for i := 0; i < len(b); i += 2 {
			one, _, _ := Fields(rec[b[i]:b[i+1]], 0, delim)
			if len(one) != 1 || !bytes.Equal(one[0], fields[i/2]) {
				t.Fatalf("%q: field %d as written is %q, decoded %q; want %q", rec, i/2, rec[b[i]:b[i+1]], one, fields[i/2])
			}
		}
	}
}
