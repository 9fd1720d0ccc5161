package index

import "sync/atomic"

// A wrong guess wastes the worker's scan of its chunk (a scan from a wrong
// start can cost several times a right one), and the stitcher must then
// scan the chunk again, in order, which everything after it waits for. So
// scanning from guesses is held back in two ways (the README's "Files where
// guesses fail" has the measurements).
const (
	pauseAfter  = 16 // wrong guesses in a row that pause the scanning from guesses
	resumeAfter = 2  // right guesses in a row that resume it
)

// guesser says whether a worker scans a chunk from its guessed start. Workers
// call scan, and end after a scan; the stitcher calls verdict for every
// chunk whose guess it checks, in order, and begin and end around each scan
// it makes itself.
//
// No more scans run at once than there are threads, the stitcher's in-order
// scans included (repairs, the rest of chunks of too short rows, chunks no
// worker scanned): while the stitcher scans, one worker fewer scans from a
// guess. A worker refused a scan only guesses where its chunk starts (a
// search for one newline) and leaves the chunk to the stitcher. On two
// cores, two workers scanning chunks whose guesses turn out wrong took the
// cores from the stitcher: a file with eight newlines in nine inside quotes
// took twice as long with two threads as with one.
//
// And after pauseAfter wrong guesses in a row no worker scans from a guess
// until resumeAfter guesses in a row are right (the stitcher checks the
// guesses of the chunks it scans all the same): the cores' time is not spent
// on scans that are nearly all wasted, and a hostile stretch of a file does
// not slow the ordinary rest of it. Files with a multi-line field in most
// rows, where guesses are right often enough to pay, rarely see that many
// wrong in a row.
type guesser struct {
	threads      int32
	scans        atomic.Int32 // scans running
	paused       atomic.Bool
	after        int // wrong guesses in a row that pause (pauseAfter); 0: never
	wrong, right int // guesses wrong, and right, in a row; the stitcher's
	begun        int // scans the stitcher made; its own count, for tests
}

// scan reports whether a worker scans chunk k from its guess; if so, it
// must call end when done. Chunk 0 starts where the records do: no guess.
func (g *guesser) scan(k int) bool {
	if k > 0 && g.paused.Load() {
		return false
	}
	if g.scans.Add(1) > g.threads && k > 0 {
		g.scans.Add(-1)
		return false
	}
	return true
}

// begin counts a scan of the stitcher's, which always runs: it is in order.
func (g *guesser) begin() {
	g.begun++
	g.scans.Add(1)
}

// end counts a scan done.
func (g *guesser) end() { g.scans.Add(-1) }

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
