package index

import "sync/atomic"

// Scanning from guesses is held back in two ways, as a wrong guess wastes
// the worker's scan of its chunk (and a scan from a wrong start can cost
// several times a right one), and the stitcher must then scan the chunk
// again, in order, which everything after it waits for.
//
// No more scans run at once than there are threads, the stitcher's
// included: while it scans in order, one worker fewer scans from a guess,
// the others only guess where their chunks start (a search for one
// newline) and leave the chunks to it. On two cores, two workers scanning
// chunks whose guesses turn out wrong took the cores from the stitcher: a
// 1 GiB file with eight newlines in nine inside quotes took 3.4-4.3 s with
// two threads against 1.7-2.1 s with one.
//
// And after pauseAfter wrong guesses in a row no worker scans from a guess
// until resumeAfter guesses in a row (which the stitcher checks all the
// same) are right: the cores' time is not spent on scans that are nearly
// all wasted, while a hostile stretch of a file does not slow the ordinary
// rest of it. The hostile file then takes 1.75-2.0 s with two threads and
// the CPU time of one; files with a multi-line field in half or nine tenths
// of their rows, where guesses are right often enough to pay, rarely see
// sixteen wrong ones in a row.
const (
	pauseAfter  = 16 // wrong guesses in a row that pause the scanning from guesses
	resumeAfter = 2  // right guesses in a row that resume it
)

// guesser says whether a worker scans a chunk from its guessed start. Workers
// call scan, and end after a scan; the stitcher calls verdict for every
// chunk whose guess it checks, in order, and begin and end around each scan
// it makes itself.
//
// No more than threads scans run at once, the stitcher's included: when the
// stitcher scans in order (a repair, say) a worker only guesses. Otherwise,
// on two cores, two workers scanning from guesses that turn out wrong take
// the cores from the stitcher, which must scan those chunks again: a file
// whose newlines are mostly inside quotes took twice the sequential time.
type guesser struct {
	threads      int32
	scans        atomic.Int32 // scans running
	paused       atomic.Bool
	after        int // wrong guesses in a row that pause (pauseAfter); 0: never
	wrong, right int // guesses wrong, and right, in a row; the stitcher's
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
func (g *guesser) begin() { g.scans.Add(1) }

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
