package index

import "testing"

// TestGuesserPauses: pauseAfter wrong guesses in a row pause the scanning
// from guesses, resumeAfter right ones in a row resume it, a right guess
// starts the count of wrong ones again and a wrong one that of right ones,
// and with after 0 nothing pauses it. Chunk 0, which needs no guess, is
// always scanned.
func TestGuesserPauses(t *testing.T) {
	g := guesser{threads: 2, after: pauseAfter}
	scans := func() bool {
		ok := g.scan(1)
		if ok {
			g.end()
		}
		return ok
	}
	verdicts := func(right bool, n int) {
		for range n {
			g.verdict(right)
		}
	}
	verdicts(false, pauseAfter-1)
	if !scans() {
		t.Fatalf("paused after %d wrong guesses; want %d", pauseAfter-1, pauseAfter)
	}
	g.verdict(true)
	verdicts(false, pauseAfter-1)
	if !scans() {
		t.Fatal("a right guess did not start the count of wrong ones again")
	}
	g.verdict(false)
	if scans() {
		t.Fatalf("not paused after %d wrong guesses in a row", pauseAfter)
	}
	if !g.scan(0) {
		t.Fatal("chunk 0 not scanned while paused")
	}
	g.end()
	verdicts(true, resumeAfter-1)
	g.verdict(false)
	verdicts(true, resumeAfter-1)
	if scans() {
		t.Fatalf("resumed after %d right guesses, a wrong one between", resumeAfter-1)
	}
	g.verdict(true)
	if !scans() {
		t.Fatalf("not resumed after %d right guesses in a row", resumeAfter)
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
