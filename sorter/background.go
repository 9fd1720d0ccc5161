package sorter

import (
	"slices"
	"sync/atomic"
)

// # Spilling in the background
//
// A parallel build feeds the Sorter from one goroutine, which stitches the
// chunks the scanning workers return; the workers get only a few chunks
// ahead of it. A spill written on that goroutine (a quarter of a gigabyte,
// 0.1 s on the reference VM) stalls them all for as long. So, with several
// threads, AddGroup starts a spill before the budget is full, on a
// goroutine of its own, and groups go on arriving in the room left
// (backgroundRoom of the budget); it waits for the spill only when that room
// runs out. No spill starts while InputDone says the records still to come
// fit (restFits), and a spill does not keep the room free in what it leaves
// for the end: the groups that arrive while it is written are part of that
// rest. The spilled arenas stay counted until the spill has ended and
// AddGroup, Finish or another spill has retired them; then their buffers are
// the spares handed back to new groups, as after any spill. Close stops a
// running spill at the next partition: the files are about to go.

// backgroundRoom is the share of the budget (one part in backgroundRoom)
// kept free for the groups that arrive while a background spill is written.
const backgroundRoom = 8

// backgroundSpill is a spill being written on a goroutine of its own.
type backgroundSpill struct {
	out  []*arena    // the arenas written, no longer among those in memory
	g    generation  // where they go in the spill files, set by the goroutine
	done chan error  // the goroutine's result
	stop atomic.Bool // set by Close: the goroutine gives up at the next partition
}

// room returns the part of the budget kept free for groups that arrive
// while a background spill is written.
func (s *Sorter) room() int64 { return s.limit / backgroundRoom }

// startSpill writes the oldest arenas, until at most target bytes of arenas
// are left in memory, to the spill files on a goroutine of its own. Nothing
// else may touch the spill files until collectSpill has returned.
func (s *Sorter) startSpill(target int64) error {
	k := s.oldestOver(target)
	if k == 0 {
		return nil
	}
	if err := s.openSpill(); err != nil {
		return err
	}
	bg := &backgroundSpill{out: slices.Clone(s.arenas[:k]), done: make(chan error, 1)}
	s.dropOldest(k)
	s.bg = bg
	s.stats.Background++
	sp := s.spill
	go func() { bg.done <- sp.writeGeneration(&bg.g, bg.out, &bg.stop) }()
	return nil
}

// collectSpill retires the arenas of a background spill that has ended, and
// reports whether there was one. With wait it waits for one still running;
// without, it leaves a running one alone.
func (s *Sorter) collectSpill(wait bool) (bool, error) {
	bg := s.bg
	if bg == nil {
		return false, nil
	}
	var err error
	if wait {
		err = <-bg.done
	} else {
		select {
		case err = <-bg.done:
		default:
			return false, nil
		}
	}
	s.bg = nil
	if err != nil {
		return false, err
	}
	s.retire(bg.out, bg.g)
	return true, nil
}

// trimSpares lets the garbage collector have spares until the Sorter holds
// at most max bytes, or none is left.
func (s *Sorter) trimSpares(max int64) {
	for s.mem > max && len(s.spares) > 0 {
		s.takeSpare() // out of the count, and unreferenced
	}
}
