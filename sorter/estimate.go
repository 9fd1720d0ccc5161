package sorter

// # How much a spill writes
//
// Every record is spilled once at most, so what a build spills in all is
// what is not in memory at the end. Spilling down to half the budget, the
// rule without an estimate, can end with memory half empty: 100M records
// (1.6 GB) in a 1 GiB budget spilled 63M (one thread) and 69M (two). With
// InputDone the Sorter knows how much input is left, and so about how many
// records are still to come, and a spill keeps in memory what the budget
// can hold beside them, when that is more than half: 37M with one thread,
// and 44M with two (beside the chunks in flight, of a 948 MiB share). A spill
// writes no more than the rule would, unless more must go for a new arena
// or group to fit, and at least a sixteenth of the budget, so that an
// estimate far off cannot make a generation of every arena. With several
// threads, no background spill starts while the estimate says the rest
// fits, and the room such a spill keeps free for the groups that arrive
// while it is written is not kept at the end: the budget ends full (97% at
// 100M rows instead of 87%).

// InputDone tells the Sorter that the records added so far come from the
// first done of total units of input (bytes of a file, say). From it the
// Sorter estimates how many records are still to come, and a spill writes
// no more than must go for those to fit in memory at the end (see
// spillTarget). An estimate that proves wrong costs speed, never
// correctness. Calling InputDone is optional; it must come from the
// goroutine that adds.
func (s *Sorter) InputDone(done, total int64) {
	s.inDone, s.inTotal = done, total
}

// spillTarget returns how many bytes of arenas a spill leaves in memory:
// half the budget, or more when InputDone says that the records still to
// come (and a sixteenth more, in case the rest of the input is denser) fit
// beside more; but a sixteenth of the budget less than the arenas hold at
// most. Memory is counted per byte of arena records as it is now (see
// perByte). A background spill's room is not kept: the groups that arrive
// while it is written come out of the records still to come.
func (s *Sorter) spillTarget() int64 {
	held := s.heldBytes()
	if !s.estimating() || held == 0 {
		return s.limit / 2
	}
	return max(s.limit/2, min(int64(s.keepBytes(held)), held-s.limit/16))
}

// keepBytes returns how many bytes of arena records fit in the budget beside
// the records still to come, by InputDone's estimate and a sixteenth more,
// and Finish's buffers, counted per byte as now; held is the bytes of the
// arenas' records. Negative when even the rest alone does not fit.
func (s *Sorter) keepBytes(held int64) float64 {
	return float64(s.limit-s.finishRoom())/s.perByte(held) - s.restBytes()*17/16
}

// finishRoom returns the memory that Finish's sort buffers will take with
// several threads, estimated from the records expected in all: two pairs
// per worker for a partition of a 1/partitions share, and a sixteenth more
// for an uneven one. A spill leaves it free, or Finish would have to spill
// again to make it room (12.5 MB at 100M rows and two threads).
func (s *Sorter) finishRoom() int64 {
	if s.opts.Threads <= 1 || !s.estimating() {
		return 0
	}
	part := (float64(s.n)*recordBytes + s.restBytes()) / partitions
	return int64(4 * float64(s.opts.Threads) * part * 17 / 16)
}

// restFits reports whether, by InputDone's estimate and a sixteenth more,
// the records still to come fit in the budget beside those held and
// Finish's buffers: then no background spill need start. Once the budget
// has filled while it said so (see AddGroup), it says no.
func (s *Sorter) restFits() bool {
	held := s.heldBytes()
	return !s.lowEstimate && s.estimating() && held > 0 && float64(held) <= s.keepBytes(held)
}

// restBytes estimates the bytes of the records still to come: the records
// added so far, scaled by the input left. In floating point: records times
// input bytes overflows an int64 for inputs of a few gigabytes.
func (s *Sorter) restBytes() float64 {
	return float64(s.n) * recordBytes * float64(s.inTotal-s.inDone) / float64(s.inDone)
}

// perByte returns the memory counted per byte of the held arenas' records
// (held bytes of them): a group's buffer, taken over, holds room to grow
// besides its records. Idle buffers are left out, as they go to new
// records.
func (s *Sorter) perByte(held int64) float64 {
	return max(1, float64(s.mem-s.idleBytes())/float64(held))
}

// estimating reports whether InputDone has said how much input is left.
func (s *Sorter) estimating() bool {
	return s.inDone > 0 && s.inTotal >= s.inDone
}

// syncTarget returns how many bytes of arenas AddGroup's spill leaves in
// memory when a group of need bytes does not fit: half the budget without
// an estimate; with one, after a background spill has ended, what
// spillTarget says, or less if letting the spares go cannot make the room.
// Without the second case, this spill, which comes whenever the groups
// catch a background spill up, would undo the estimate.
func (s *Sorter) syncTarget(need int64) (int64, error) {
	if !s.estimating() {
		return s.limit / 2, nil
	}
	if _, err := s.collectSpill(true); err != nil {
		return 0, err
	}
	held := s.heldBytes()
	over := s.mem - s.spareBytes() + need - s.limit
	if over <= 0 {
		return held, nil // nothing to write: the spares make the room
	}
	return min(s.spillTarget(), held-over), nil
}

// idleBytes returns the bytes of the buffers counted in s.mem that hold no
// records and will take new ones: the spares handed back to groups, and
// with one thread the free blocks new arenas are carved from (groups do not
// use those).
func (s *Sorter) idleBytes() int64 {
	n := s.spareBytes()
	if s.opts.Threads <= 1 {
		n += int64(len(s.free)) * int64(s.arena) * recordBytes
	}
	return n
}

// spareBytes returns the bytes of the spares, counted in s.mem.
func (s *Sorter) spareBytes() int64 {
	n := int64(0)
	for _, b := range s.spares {
		n += int64(cap(b))
	}
	return n * recordBytes
}
