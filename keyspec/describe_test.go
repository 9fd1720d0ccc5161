package keyspec

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// numbered returns n header fields "f0" to "f<n-1>".
func numbered(n int) [][]byte {
	fields := make([][]byte, n)
	for i := range fields {
		fields[i] = []byte("f" + strconv.Itoa(i))
	}
	return fields
}

// TestDescribe: the wording of a header for messages: its number of
// columns and its fields quoted as Go strings, the middle of a header of
// more than eight fields elided.
func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields [][]byte
		want   string
	}{
		{"One", header("id"), `1 column: "id"`},
		{"OneEmpty", header(""), `1 column: ""`},
		{"Two", header("id", "user"), `2 columns: "id", "user"`},
		{"Escaped", header(`a"b`, "x\ty", "a,b", "é\xff"), `4 columns: "a\"b", "x\ty", "a,b", "é\xff"`},
		{"Empties", header("", ""), `2 columns: "", ""`},
		{"Eight", numbered(8), `8 columns: "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"`},
		{"Nine", numbered(9), `9 columns: "f0", "f1", "f2", "f3", ..., "f5", "f6", "f7", "f8"`},
		{"Ten", numbered(10), `10 columns: "f0", "f1", "f2", "f3", ..., "f6", "f7", "f8", "f9"`},
		{"Hundred", numbered(100), `100 columns: "f0", "f1", "f2", "f3", ..., "f96", "f97", "f98", "f99"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Describe(c.fields); got != c.want {
				t.Errorf("Describe(%q) =\n%s\nwant\n%s", c.fields, got, c.want)
			}
		})
	}
}

// TestDescribeShowsQuoted: for headers of random names and lengths, the
// first four and last four names (all of eight or fewer) appear in order,
// each quoted as strconv.Quote quotes it; no other name appears, and "..."
// stands for them exactly when there are any.
func TestDescribeShowsQuoted(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 1))
	const alphabet = "ab ,;\"\\\t\n\r\x00\xffé" // no '#', digit or '.': the tags and "..." stay unique
	for range 2000 {
		n := 1 + r.IntN(40)
		if r.IntN(4) == 0 {
			n = 1 + r.IntN(10)
		}
		fields := make([][]byte, n)
		for i := range fields {
			var b strings.Builder
			for range r.IntN(5) {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			fmt.Fprintf(&b, "#%d#", i) // unique, and no name holds another's tag
			for range r.IntN(3) {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			fields[i] = []byte(b.String())
		}
		got := Describe(fields)
		prefix := fmt.Sprintf("%d columns: ", n)
		if n == 1 {
			prefix = "1 column: "
		}
		if !strings.HasPrefix(got, prefix) {
			t.Fatalf("Describe(%q) = %q, want it to start %q", fields, got, prefix)
		}
		pos := len(prefix)
		for i, f := range fields {
			shown := n <= 8 || i < 4 || i >= n-4
			q := strconv.Quote(string(f))
			if !shown {
				if strings.Contains(got, fmt.Sprintf("#%d#", i)) {
					t.Fatalf("Describe(%q) = %q shows field %d of %d", fields, got, i, n)
				}
				continue
			}
			j := strings.Index(got[pos:], q)
			if j < 0 {
				t.Fatalf("Describe(%q) = %q: field %d, %s, not found after byte %d", fields, got, i, q, pos)
			}
			pos += j + len(q)
		}
		if elided := strings.Count(got, ", ..., "); elided != 0 && n <= 8 || elided != 1 && n > 8 {
			t.Fatalf("Describe of %d fields = %q: elided %d times", n, got, elided)
		}
		if pos != len(got) {
			t.Fatalf("Describe(%q) = %q: %q after the last field", fields, got, got[pos:])
		}
	}
}
