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
