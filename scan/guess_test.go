package scan

import (
	"math/rand/v2"
	"testing"
)

// refLabels reads data one byte at a time, as the dialect says, and tells
// for each byte whether it is inside a quoted field (after the opening
// quote, up to the closing one included), whether it is the second quote of
// a "" escape (which reads as a closing quote from there on), and where
// the record holding it ends: just past the newline that ends it, or
// len(data) and not terminated. A blank line is a record of its own here.
func refLabels(data []byte, delim byte) (inside, escape []bool, ends []int, terminated []bool) {
	n := len(data)
	inside, escape, terminated = make([]bool, n), make([]bool, n), make([]bool, n)
	ends = make([]int, n)
	const (
		fieldStart = iota
		unquoted
		quoted
	)
	state, recStart := fieldStart, 0
	closeRecord := func(e int, term bool) {
		for p := recStart; p < min(e, n); p++ {
			ends[p], terminated[p] = e, term
		}
		recStart = e
	}
	for i := 0; i < n; i++ {
		c := data[i]
		switch {
		case state == quoted:
			inside[i] = true
			if c == quote {
				if i+1 < n && data[i+1] == quote {
					inside[i+1], escape[i+1] = true, true
					i++
					continue
				}
				state = unquoted // text after the closing quote is taken as it is
			}
		case state == fieldStart && c == quote:
			state = quoted
		case c == delim:
			state = fieldStart
		case c == '\n':
			state = fieldStart
			closeRecord(i+1, true)
		default:
			state = unquoted
		}
	}
	closeRecord(n, false)
	return inside, escape, ends, terminated
}

// guessInputs returns random garbage over the bytes that matter and CSVs
// with quoted and multi-line fields.
func guessInputs(r *rand.Rand) [][]byte {
	var ins [][]byte
	alphabet := []byte("ab1 ,\"\n\r")
	for range 300 {
		b := make([]byte, 1+r.IntN(200))
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		ins = append(ins, b)
	}
	fields := []string{"a", "bb", `"q"`, `"multi` + "\n" + `line"`, `"x,""y"""`, `"t"ail`, "", `"` + "\r\n" + `"`}
	for range 100 {
		var b []byte
		for range 1 + r.IntN(20) {
			for f := range 1 + r.IntN(4) {
				if f > 0 {
					b = append(b, ',')
				}
				b = append(b, fields[r.IntN(len(fields))]...)
			}
			b = append(b, '\n')
		}
		ins = append(ins, b[:len(b)-r.IntN(2)])
	}
	return ins
}

// TestEndReadings: read from any byte with the right guess of whether it is
// inside quotes, EndInsideQuotes and EndOutsideQuotes find where the record
// holding it ends, as the byte-at-a-time reading does.
func TestEndReadings(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	checked := [2]int{}
	for _, data := range guessInputs(r) {
		out, in := checkReadings(t, data, ',')
		checked[0] += out
		checked[1] += in
	}
	if checked[0] < 1000 || checked[1] < 1000 {
		t.Fatalf("checked %d bytes outside quotes and %d inside: too few", checked[0], checked[1])
	}
}

// checkReadings checks EndOutsideQuotes and EndInsideQuotes from every byte
// of data against refLabels, and CountFields against Fields from every
// byte; it returns how many bytes it checked outside and inside quotes.
func checkReadings(t *testing.T, data []byte, delim byte) (outside, inside int) {
	t.Helper()
	in, escape, end, terminated := refLabels(data, delim)
	for p := range data {
		first, _ := skipBlankLines(data, p, len(data))
		fields, fend, fterm := Fields(data, first, delim)
		if n, e, term := CountFields(data, p, delim); n != len(fields) || e != fend || term != fterm {
			t.Fatalf("CountFields(%q, %d) = %d, %d, %v; Fields says %d, %d, %v", data, p, n, e, term, len(fields), fend, fterm)
		}
		if escape[p] {
			continue // reads as a closing quote: no single answer
		}
		read, name := EndOutsideQuotes, "EndOutsideQuotes"
		if in[p] {
			read, name = EndInsideQuotes, "EndInsideQuotes"
			inside++
		} else {
			outside++
		}
		if e, term := read(data, p, delim); e != end[p] || term != terminated[p] {
			t.Fatalf("%s(%q, %d) = %d, %v; want %d, %v", name, data, p, e, term, end[p], terminated[p])
		}
	}
	return outside, inside
}
