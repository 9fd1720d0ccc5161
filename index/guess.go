package index

import "sync/atomic"

// A run of wrong guesses pauses the guessing. A wrong guess wastes a
// worker's scan of the chunk, and on a file whose newlines are mostly
// inside quotes nearly every guess is wrong: the workers then only compete
// with the stitcher, which scans every chunk again in order, for the cores
// (a 1 GiB file with eight newlines in nine inside quotes took 3.3-3.6 s
// with two threads against 1.7-2.1 s with one). So after pauseAfter wrong
// guesses in a row the workers stop scanning chunks from guesses and hand
// them to the stitcher unscanned, but for one chunk in probeEvery, still
// guessed: the first right guess among those resumes the guessing, so a
// hostile stretch of a file does not slow the ordinary rest of it.
const (
	pauseAfter = 4 // wrong guesses in a row that pause the guessing
	probeEvery = 8 // while paused, chunks k with k%probeEvery == 0 are still guessed
)

// guesser says which chunks the workers scan from a guessed start. Workers
// call guess; the stitcher calls verdict for every chunk it checks, in
// order.
type guesser struct {
	paused atomic.Bool
	after  int // wrong guesses in a row that pause the guessing (pauseAfter); 0: never
	wrong  int // wrong guesses in a row; the stitcher's
}

// guess reports whether chunk k is worth scanning from a guess. Chunk 0
// starts where the records start, no guess, and is always scanned.
func (g *guesser) guess(k int) bool {
	return k == 0 || k%probeEvery == 0 || !g.paused.Load()
}

// verdict records whether a chunk's guessed start was right.
func (g *guesser) verdict(right bool) {
	if right {
		g.wrong = 0
		g.paused.Store(false)
		return
	}
	g.wrong++
	if g.after > 0 && g.wrong >= g.after {
		g.paused.Store(true)
	}
}
