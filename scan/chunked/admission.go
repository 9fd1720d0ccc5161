package chunked

import (
	"math/bits"
	"sync/atomic"
)

// resumeAt is the number of right guesses in a row that resume the scanning
// from guesses once paused.
const resumeAt = 4

// admission says whether a worker scans a chunk from its guessed start.
// Workers call admit, and done after a scan; the stitcher calls verdict for
// every chunk whose guess it checks, in order, and begin and done around
// each scan it makes itself.
//
// No more scans run at once than there are threads, the stitcher's in-order
// scans included (repairs, the rest of chunks of too short rows, chunks no
// worker scanned): while the stitcher scans, one worker fewer scans from a
// guess. A worker refused a scan only guesses where its chunk starts (see
// guessStart) and leaves the chunk to the stitcher. On two cores, two
// workers scanning chunks whose guesses turn out wrong took the cores from
// the stitcher: a file with eight newlines in nine inside quotes took twice
// as long with two threads as with one.
//
// And once pauseAt of the last 16 guesses were wrong, no worker scans from
// a guess until resumeAt guesses in a row are right (the stitcher checks
// the guesses of the chunks it scans all the same): the cores' time is not
// spent on scans that are nearly all wasted, and a hostile stretch of a
// file does not slow the ordinary rest of it. Counted over the last 16
// rather than in a row, so that the odd right guess among wrong ones (one
// in ten on a hostile file) does not keep the workers scanning.
type admission struct {
	threads int32
	scans   atomic.Int32 // scans running
	paused  atomic.Bool
	pauseAt int    // wrong guesses among the last 16 that pause (Plan.PauseAt); 0: never
	last    uint16 // the last 16 verdicts, the latest in bit 0: 1 for a wrong guess; the stitcher's
	begun   int    // scans the stitcher made; its own count, for tests
}

// admit reports whether a worker scans chunk k from its guess; if so, it
// must call done when done. Chunk 0 starts where the records do: no guess.
func (a *admission) admit(k int) bool {
	if k > 0 && a.paused.Load() {
		return false
	}
	if a.scans.Add(1) > a.threads && k > 0 {
		a.scans.Add(-1)
		return false
	}
	return true
}

// begin counts a scan of the stitcher's, which always runs: it is in order.
func (a *admission) begin() {
	a.begun++
	a.scans.Add(1)
}

// done counts a scan done.
func (a *admission) done() { a.scans.Add(-1) }

// verdict records whether a chunk's guessed start was right.
func (a *admission) verdict(right bool) {
	a.last <<= 1
	if right {
		if a.last&(1<<resumeAt-1) == 0 {
			a.paused.Store(false)
		}
		return
	}
	a.last |= 1
	if a.pauseAt > 0 && bits.OnesCount16(a.last) >= a.pauseAt {
		a.paused.Store(true)
	}
}
