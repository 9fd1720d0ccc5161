package index

import "testing"

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
