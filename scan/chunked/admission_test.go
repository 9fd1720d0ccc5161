package chunked

import "testing"

// TestAdmissionPauses: defaultPauseAt wrong guesses among the last 16 pause the
// scanning from guesses, right ones among them or not, resumeAt right
// ones in a row resume it, and with pauseAt 0 nothing pauses it. Chunk 0,
// which needs no guess, is always scanned.
func TestAdmissionPauses(t *testing.T) {
	g := admission{threads: 2, pauseAt: defaultPauseAt}
	scans := func() bool {
		ok := g.admit(1)
		if ok {
			g.done()
		}
		return ok
	}
	// Three wrong, one right, over and over: the pause comes at the
	// defaultPauseAt-th wrong guess.
	wrong := 0
	for wrong < defaultPauseAt {
		right := (wrong+1)%4 == 0 && g.last&1 == 1
		g.verdict(right)
		if !right {
			wrong++
		}
		if paused := !scans(); paused != (wrong >= defaultPauseAt) {
			t.Fatalf("after %d wrong guesses, a right one in four: paused %v", wrong, paused)
		}
	}
	if !g.admit(0) {
		t.Fatal("chunk 0 not scanned while paused")
	}
	g.done()
	for range resumeAt - 1 {
		g.verdict(true)
	}
	g.verdict(false)
	for range resumeAt - 1 {
		g.verdict(true)
	}
	if scans() {
		t.Fatalf("resumed after %d right guesses, a wrong one between", resumeAt-1)
	}
	g.verdict(true)
	if !scans() {
		t.Fatalf("not resumed after %d right guesses in a row", resumeAt)
	}
	// Wrong guesses spread over more than 16 never add up to a pause.
	g = admission{threads: 2, pauseAt: defaultPauseAt}
	for i := range 200 {
		g.verdict(i%2 == 0)
		if !scans() {
			t.Fatalf("paused with half of the guesses right, after %d", i+1)
		}
	}

	never := admission{threads: 2}
	for range 10 * defaultPauseAt {
		never.verdict(false)
	}
	if !never.admit(1) {
		t.Fatal("an admission that never pauses paused")
	}
}

// TestAdmissionAdmits: no more scans run at once than there are threads, the
// stitcher's included, which always runs; chunk 0 is always scanned.
func TestAdmissionAdmits(t *testing.T) {
	g := admission{threads: 2, pauseAt: defaultPauseAt}
	if !g.admit(1) || !g.admit(2) {
		t.Fatal("two workers of two threads not both scanning")
	}
	if g.admit(3) {
		t.Fatal("a third scan admitted with two threads")
	}
	g.done()
	if !g.admit(3) {
		t.Fatal("no scan admitted after one ended")
	}
	g.done()
	g.done()
	g.begin() // the stitcher scans in order
	if !g.admit(4) {
		t.Fatal("no worker scan beside the stitcher's with two threads")
	}
	if g.admit(5) {
		t.Fatal("two worker scans beside the stitcher's with two threads")
	}
	if !g.admit(0) {
		t.Fatal("chunk 0 not scanned")
	}
	g.done()
	g.done()
	g.done()
	if n := g.scans.Load(); n != 0 {
		t.Fatalf("%d scans counted after all ended", n)
	}
}
