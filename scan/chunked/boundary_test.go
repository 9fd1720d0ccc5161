package chunked

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// TestGuessStartRange: on any input, a guess is a position from which
// a worker can scan: within [b, min(len, limit)], and either that end or
// just past a newline.
func TestGuessStartRange(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 43))
	alphabet := []byte("ab1 ,;\t\"\n\r")
	for range 3000 {
		data := make([]byte, 1+r.IntN(300))
		for j := range data {
			data[j] = alphabet[r.IntN(len(alphabet))]
		}
		delim := []byte(",;\t")[r.IntN(3)]
		for b := 1; b < len(data); b++ {
			limit := b + 1 + r.IntN(len(data)-b+10)
			end := min(len(data), limit)
			g := guessStart(data, b, limit, delim, r.IntN(5))
			if g < b || g > end || g != end && data[g-1] != '\n' {
				t.Fatalf("guessStart(%q, %d, %d, %q) = %d: want the end (%d) or a position after a newline in [%d, %d]", data, b, limit, delim, g, end, b, end)
			}
		}
	}
}

// TestGuessStartRight: in CSVs with a multi-line field in half the rows,
// single- and double-spaced, with \n and \r\n, every chunk's guess is where
// the chunk really starts (where a sequential scan of the chunks before it
// stops).
func TestGuessStartRight(t *testing.T) {
	for _, c := range []struct {
		name, nl string
		blank    bool
	}{{"single-spaced", "\n", false}, {"double-spaced", "\n", true}, {"double-spaced CRLF", "\r\n", true}} {
		r := rand.New(rand.NewPCG(44, 44))
		var b bytes.Buffer
		b.WriteString("id,user,ts,comment" + c.nl)
		for i := 0; i < 5000; i++ {
			fmt.Fprintf(&b, "%d,u%d,2024-01-01T00:00:%02d,", i, i%977, i%60)
			switch r.IntN(4) {
			case 0:
				b.WriteString("\"line one" + c.nl + "line two\"")
			case 1:
				b.WriteString("\"" + c.nl + "starts with a break, \"\"quoted\"\"\"")
			default:
				b.WriteString("plain")
			}
			b.WriteString(c.nl)
			if c.blank {
				b.WriteString(c.nl)
			}
		}
		data := b.Bytes()
		s := &Scan{Data: data, Delim: ',', KeyCol: 1}
		start := bytes.IndexByte(data, '\n') + 1
		cols := usualFields(data, start, s.Delim)
		if cols != 4 {
			t.Fatalf("%s: usual fields %d; want 4", c.name, cols)
		}
		for _, chunk := range []int{1000, 4096} {
			wrong, guesses := 0, 0
			expect := start
			for bound := start + chunk; bound < len(data); bound += chunk {
				stop, _, err := s.scanRange(expect, bound, [][]sorter.Record{nil}, []adder{func(r []sorter.Record) ([]sorter.Record, error) { return r[:0], nil }})
				if err != nil {
					t.Fatal(err)
				}
				expect = stop
				if expect >= bound+chunk {
					continue // no record starts in the chunk
				}
				guesses++
				if g := guessStart(data, bound, bound+chunk, s.Delim, cols); g != expect {
					wrong++
				}
			}
			if wrong > 0 {
				t.Errorf("%s, chunk %d: %d of %d guesses wrong", c.name, chunk, wrong, guesses)
			}
		}
	}
}
