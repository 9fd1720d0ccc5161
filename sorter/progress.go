package sorter

// # How much a spill writes
//
// Every record is spilled once at most, so what a build spills in all is
// what is not in memory at the end. Spilling down to half the budget, the
// rule without an estimate, can end with memory half empty: 100M records
// (1.6 GB) in a 1 GiB budget spilled 63M (one thread) and 69M (two). With
// Progress the Sorter knows how much input is left, and so about how many
// records are still to come, and a spill keeps in memory what the budget
// can hold beside them, when that is more than half: 42M and 60M. A spill
// never writes more than the rule would.

// Progress tells the Sorter that the records added so far come from the
// first done of total units of input (bytes of a file, say). From it the
// Sorter estimates how many records are still to come, and a spill writes
// no more than must go for those to fit in memory at the end (see
// spillTarget). An estimate that proves wrong costs speed, never
// correctness. Calling Progress is optional; it must come from the
// goroutine that adds.
func (s *Sorter) Progress(done, total int64) {
	s.inDone, s.inTotal = done, total
}

// spillTarget returns how many bytes of arenas a spill leaves in memory:
// half the budget, or more when Progress says that the records still to
// come (and a sixteenth more, in case the rest of the input is denser) fit
// beside more, with a background spill's room to spare. Memory is counted
// per byte of arena records as it is now: a group's buffer, taken over,
// holds room to grow besides its records; spare and free buffers are left
// out, as they go to new records.
func (s *Sorter) spillTarget() int64 {
	held := s.heldBytes()
	if s.inDone <= 0 || s.inTotal < s.inDone || held == 0 {
		return s.limit / 2
	}
	// In floating point: records times input bytes overflows an int64 for
	// inputs of a few gigabytes.
	rest := float64(s.n) * recordBytes * float64(s.inTotal-s.inDone) / float64(s.inDone)
	perByte := max(1, float64(s.mem-s.idleBytes())/float64(held))
	keep := float64(s.limit-s.room())/perByte - rest*17/16
	return max(s.limit/2, int64(keep))
}

// idleBytes returns the bytes of the spare and free buffers, counted in
// s.mem and holding no records.
func (s *Sorter) idleBytes() int64 {
	n := int64(len(s.free)) * int64(s.arena)
	for _, b := range s.spares {
		n += int64(cap(b))
	}
	return n * recordBytes
}
