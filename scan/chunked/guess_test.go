package chunked

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGuessWindowed: a guess over a windowed input is guessStart's over
// the whole slice, at every boundary of random inputs (where the guess's
// window holds all the data), and at boundaries within and before a line
// longer than the guess's window, whose first newline it must search for
// in further windows.
func TestGuessWindowed(t *testing.T) {
	r := rand.New(rand.NewPCG(62, 62))
	check := func(data []byte, b, limit, cols int) {
		t.Helper()
		s := &Scan{Input: NewReaderAt(bytes.NewReader(data), int64(len(data))), Delim: ',', Plan: Plan{WindowBytes: 1 + r.IntN(5000)}}
		got, err := s.guess(b, limit, cols)
		if want := guessStart(data, b, limit, ',', cols); err != nil || got != want {
			t.Fatalf("%.80q: guess at %d, limit %d, cols %d: %d, %v; want %d", data, b, limit, cols, got, err, want)
		}
	}
	for range 300 {
		data := append(csvLike(r, 20, ','), garbage(r, 0, 100)...)
		for b := 1; b < len(data); b++ {
			check(data, b, b+1+r.IntN(len(data)-b+10), r.IntN(5))
		}
	}
	long := []byte("a,b\n\"q\n" + strings.Repeat("z", 3*guessWindow) + "\n\"x,y\"\n" + strings.Repeat("c,d\n", 1000))
	for _, b := range []int{1, 3, 5, 6, 100, guessWindow, 2 * guessWindow, 3*guessWindow + 4, 3*guessWindow + 8} {
		for _, limit := range []int{b + 1, b + guessWindow/2, 4 * guessWindow, math.MaxInt} {
			for cols := range 3 {
				check(long, b, limit, cols)
			}
		}
	}
}

// TestUsualFieldsWindowed: usualFieldsAt over a windowed input is
// usualFields over the whole slice, a byte order mark at the data's start
// skipped, one elsewhere not.
func TestUsualFieldsWindowed(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 63))
	for range 500 {
		data := csvLike(r, 12, ',')
		if r.IntN(3) == 0 {
			data = append([]byte("h\n\xEF\xBB\xBFx,y\n"), data...)
		}
		s := &Scan{Input: NewReaderAt(bytes.NewReader(data), int64(len(data))), Delim: ','}
		for _, start := range []int{0, 2, bytes.IndexByte(data, '\n') + 1, len(data)} {
			start = min(start, len(data))
			got, err := s.usualFieldsAt(start)
			if want := usualFields(data, start, ','); err != nil || got != want {
				t.Fatalf("%q from %d: %d, %v; want %d", data, start, got, err, want)
			}
		}
	}
}

// TestGuessStarts: GuessStarts guesses each cut as guess does with the
// next cut as its limit and the usual fields of the data from from, over a
// windowed input; cuts out of order or not past from are an error.
func TestGuessStarts(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 63))
	for range 100 {
		data := csvLike(r, 200, ',')
		in := NewReaderAt(bytes.NewReader(data), int64(len(data)))
		s := &Scan{Input: in, Delim: ',', Plan: Plan{WindowBytes: 1 + r.IntN(5000)}}
		from := bytes.IndexByte(data, '\n') + 1
		var cuts []int
		for b := from + 1 + r.IntN(200); b < len(data); b += 1 + r.IntN(400) {
			cuts = append(cuts, b)
		}
		got, err := s.GuessStarts(from, cuts)
		if err != nil {
			t.Fatal(err)
		}
		cols := usualFields(data, from, ',')
		for i, b := range cuts {
			limit := len(data)
			if i+1 < len(cuts) {
				limit = cuts[i+1]
			}
			if want := guessStart(data, b, limit, ',', cols); got[i] != want {
				t.Fatalf("cut %d at %d: %d, want %d", i, b, got[i], want)
			}
		}
	}
	s := &Scan{Input: NewReaderAt(strings.NewReader("a,b\n1,2\n3,4\n"), 12), Delim: ','}
	for _, cuts := range [][]int{{4}, {9, 6}, {6, 6}} {
		if _, err := s.GuessStarts(4, cuts); err == nil {
			t.Errorf("cuts %v past 4: no error", cuts)
		}
	}
}
