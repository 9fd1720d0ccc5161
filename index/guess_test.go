package index

import "testing"

// TestGuesser: pauseAfter wrong guesses in a row pause the guessing, except
// for chunk 0 and one chunk in probeEvery; a right guess resumes it and
// starts the count again; with after 0 nothing pauses it.
func TestGuesser(t *testing.T) {
	guessed := func(g *guesser) (n int) {
		for k := range 4 * probeEvery {
			if g.guess(k) {
				n++
			}
		}
		return n
	}
	g := guesser{after: pauseAfter}
	for i := range pauseAfter - 1 {
		g.verdict(false)
		if n := guessed(&g); n != 4*probeEvery {
			t.Fatalf("after %d wrong guesses: %d chunks of %d guessed; want all", i+1, n, 4*probeEvery)
		}
	}
	g.verdict(false)
	if n := guessed(&g); n != 4 {
		t.Fatalf("after %d wrong guesses: %d chunks of %d guessed; want the 4 probes", pauseAfter, n, 4*probeEvery)
	}
	g.verdict(true)
	if n := guessed(&g); n != 4*probeEvery {
		t.Fatalf("after a right guess: %d chunks of %d guessed; want all", n, 4*probeEvery)
	}
	for range pauseAfter - 1 {
		g.verdict(false)
	}
	if !g.guess(1) {
		t.Fatal("the count of wrong guesses did not start again after a right one")
	}

	never := guesser{}
	for range 10 * pauseAfter {
		never.verdict(false)
	}
	if n := guessed(&never); n != 4*probeEvery {
		t.Fatalf("a guesser that never pauses: %d chunks of %d guessed after many wrong guesses", n, 4*probeEvery)
	}
}
