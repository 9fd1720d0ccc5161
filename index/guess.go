package index

import "sync/atomic"

// A run of wrong guesses pauses the guessing. A wrong guess wastes a
// worker's scan of the chunk (and a scan from a wrong start can cost
// several times a right one), and on a file whose newlines are mostly
// inside quotes nearly every guess is wrong: the workers then only compete
// for the cores with the stitcher, which scans every chunk again in order
// (a 1 GiB file with eight newlines in nine inside quotes took 3.3-4.3 s
// with two threads against 1.7-2.1 s with one). So after pauseAfter wrong
// guesses in a row the workers stop scanning chunks: they only guess where
// each starts, which costs a search for one newline, and hand it to the
// stitcher, which scans it in order and checks the guess all the same.
// After resumeAfter right guesses in a row the workers scan again, so a
// hostile stretch of a file does not slow the ordinary rest of it.
const (
	pauseAfter  = 4 // wrong guesses in a row that pause the scanning from guesses
	resumeAfter = 2 // right guesses in a row that resume it
)

// guesser says whether the workers scan chunks from their guessed starts.
// Workers call scanning; the stitcher calls verdict for every chunk whose
// guess it checks, in order.
type guesser struct {
	paused       atomic.Bool
	after        int // wrong guesses in a row that pause (pauseAfter); 0: never
	wrong, right int // guesses wrong, and right, in a row; the stitcher's
}

// scanning reports whether workers scan chunks from their guesses.
func (g *guesser) scanning() bool { return !g.paused.Load() }

// verdict records whether a chunk's guessed start was right.
func (g *guesser) verdict(right bool) {
	if right {
		g.wrong = 0
		if g.right++; g.right >= resumeAfter {
			g.paused.Store(false)
		}
		return
	}
	g.right = 0
	if g.wrong++; g.after > 0 && g.wrong >= g.after {
		g.paused.Store(true)
	}
}
