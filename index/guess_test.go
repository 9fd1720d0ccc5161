package index

import "testing"

// TestGuesser: pauseAfter wrong guesses in a row pause the scanning from
// guesses, resumeAfter right ones in a row resume it, a right guess starts
// the count of wrong ones again and a wrong one that of right ones, and
// with after 0 nothing pauses it.
func TestGuesser(t *testing.T) {
	g := guesser{after: pauseAfter}
	verdicts := func(right bool, n int) {
		for range n {
			g.verdict(right)
		}
	}
	verdicts(false, pauseAfter-1)
	if !g.scanning() {
		t.Fatalf("paused after %d wrong guesses; want %d", pauseAfter-1, pauseAfter)
	}
	g.verdict(true)
	verdicts(false, pauseAfter-1)
	if !g.scanning() {
		t.Fatal("a right guess did not start the count of wrong ones again")
	}
	g.verdict(false)
	if g.scanning() {
		t.Fatalf("not paused after %d wrong guesses in a row", pauseAfter)
	}
	verdicts(true, resumeAfter-1)
	g.verdict(false)
	verdicts(true, resumeAfter-1)
	if g.scanning() {
		t.Fatalf("resumed after %d right guesses, a wrong one between", resumeAfter-1)
	}
	g.verdict(true)
	if !g.scanning() {
		t.Fatalf("not resumed after %d right guesses in a row", resumeAfter)
	}

	never := guesser{}
	for range 10 * pauseAfter {
		never.verdict(false)
	}
	if !never.scanning() {
		t.Fatal("a guesser that never pauses paused")
	}
}
