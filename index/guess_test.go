package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// TestGuesserPauses: pauseAfter wrong guesses among the last 16 pause the
// scanning from guesses, right ones among them or not, resumeAfter right
// ones in a row resume it, and with after 0 nothing pauses it. Chunk 0,
// which needs no guess, is always scanned.
func TestGuesserPauses(t *testing.T) {
	g := guesser{threads: 2, after: pauseAfter}
	scans := func() bool {
		ok := g.scan(1)
		if ok {
			g.end()
		}
		return ok
	}
	// Three wrong, one right, over and over: the pause comes at the
	// pauseAfter-th wrong guess.
	wrong := 0
	for wrong < pauseAfter {
		right := (wrong+1)%4 == 0 && g.last&1 == 1
		g.verdict(right)
		if !right {
			wrong++
		}
		if paused := !scans(); paused != (wrong >= pauseAfter) {
			t.Fatalf("after %d wrong guesses, a right one in four: paused %v", wrong, paused)
		}
	}
	if !g.scan(0) {
		t.Fatal("chunk 0 not scanned while paused")
	}
	g.end()
	for range resumeAfter - 1 {
		g.verdict(true)
	}
	g.verdict(false)
	for range resumeAfter - 1 {
		g.verdict(true)
	}
	if scans() {
		t.Fatalf("resumed after %d right guesses, a wrong one between", resumeAfter-1)
	}
	g.verdict(true)
	if !scans() {
		t.Fatalf("not resumed after %d right guesses in a row", resumeAfter)
	}
	// Wrong guesses spread over more than 16 never add up to a pause.
	g = guesser{threads: 2, after: pauseAfter}
	for i := range 200 {
		g.verdict(i%2 == 0)
		if !scans() {
			t.Fatalf("paused with half of the guesses right, after %d", i+1)
		}
	}

	never := guesser{threads: 2}
	for range 10 * pauseAfter {
		never.verdict(false)
	}
	if !never.scan(1) {
		t.Fatal("a guesser that never pauses paused")
	}
}

// TestGuesserAdmits: no more scans run at once than there are threads, the
// stitcher's included, which always runs; chunk 0 is always scanned.
func TestGuesserAdmits(t *testing.T) {
	g := guesser{threads: 2, after: pauseAfter}
	if !g.scan(1) || !g.scan(2) {
		t.Fatal("two workers of two threads not both scanning")
	}
	if g.scan(3) {
		t.Fatal("a third scan admitted with two threads")
	}
	g.end()
	if !g.scan(3) {
		t.Fatal("no scan admitted after one ended")
	}
	g.end()
	g.end()
	g.begin() // the stitcher scans in order
	if !g.scan(4) {
		t.Fatal("no worker scan beside the stitcher's with two threads")
	}
	if g.scan(5) {
		t.Fatal("two worker scans beside the stitcher's with two threads")
	}
	if !g.scan(0) {
		t.Fatal("chunk 0 not scanned")
	}
	g.end()
	g.end()
	g.end()
	if n := g.scans.Load(); n != 0 {
		t.Fatalf("%d scans counted after all ended", n)
	}
}

// TestGuessStartRange: on any input, a guess is a position from which
// scanChunk can scan: within [b, min(len, limit)], and either that end or
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
		sp := spec{delim: ',', keyCol: 1}
		start := bytes.IndexByte(data, '\n') + 1
		cols := usualFields(data, start, sp.delim)
		if cols != 4 {
			t.Fatalf("%s: usual fields %d; want 4", c.name, cols)
		}
		for _, chunk := range []int{1000, 4096} {
			wrong, guesses := 0, 0
			expect := start
			for bound := start + chunk; bound < len(data); bound += chunk {
				stop, _, err := scanRange(data, expect, bound, sp, nil, func(r []sorter.Record) ([]sorter.Record, error) { return r[:0], nil })
				if err != nil {
					t.Fatal(err)
				}
				expect = stop
				if expect >= bound+chunk {
					continue // no record starts in the chunk
				}
				guesses++
				if g := guessStart(data, bound, bound+chunk, sp.delim, cols); g != expect {
					wrong++
				}
			}
			if wrong > 0 {
				t.Errorf("%s, chunk %d: %d of %d guesses wrong", c.name, chunk, wrong, guesses)
			}
		}
	}
}
