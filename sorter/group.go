package sorter

import "fmt"

// A Distributor groups records by partition, the work Add does when its
// staging buffer fills, on any goroutine: a parallel scan groups each chunk
// on the worker that scanned it, and the Sorter takes the groups over
// without copying them. Each goroutine needs its own Distributor.
type Distributor struct {
	digit digitShifts
	cnt   *[maxBuckets]int
}

// A Group is records grouped by partition, ready for [Sorter.AddGroup].
// Its buffer is reused by the next [Distributor.Group] into it, or taken
// over by AddGroup.
type Group struct {
	recs        []Record
	start       [partitions + 1]int32
	first, last uint64 // the least and the greatest offset
}

// NewDistributor returns a Distributor for s.
func (s *Sorter) NewDistributor() *Distributor {
	return &Distributor{digit: s.digit, cnt: new([maxBuckets]int)}
}

// Group groups recs, which must be in ascending Offset order, into g,
// replacing what g held.
func (d *Distributor) Group(g *Group, recs []Record) error {
	for i := 1; i < len(recs); i++ {
		if recs[i].Offset <= recs[i-1].Offset {
			return fmt.Errorf("%w: offset %d after %d", ErrOrder, recs[i].Offset, recs[i-1].Offset)
		}
	}
	if cap(g.recs) < len(recs) {
		// Room for a somewhat larger chunk next time: a sixteenth, as the
		// room counts in the budget once the Sorter takes the buffer over
		// (a quarter left a fifth of the budget empty), and the chunks of
		// one file differ little in records.
		g.recs = newRecords(len(recs), len(recs)+len(recs)/16)
	}
	g.recs = g.recs[:len(recs)]
	if len(recs) > 0 {
		g.first, g.last = recs[0].Offset, recs[len(recs)-1].Offset
	}
	distributeInto(g.recs, &g.start, recs, d.cnt, d.digit)
	return nil
}

// distributeInto scatters src, stably, by the partition digit into dst (as
// long as src) and sets the partition starts. cnt is scratch.
func distributeInto(dst []Record, start *[partitions + 1]int32, src []Record, cnt *[maxBuckets]int, digit digitShifts) {
	clear(cnt[:partitions])
	countDigits(src, cnt, digit)
	sum := 0
	for d := range partitions {
		start[d] = int32(sum)
		sum, cnt[d] = sum+cnt[d], sum
	}
	start[partitions] = int32(sum)
	scatter(dst, src, cnt, digit)
}

// smallGroup is the fewest records that AddGroup takes over as an arena
// of their own; smaller groups are staged (copied).
const smallGroup = 4096

// AddGroup adds the records of g, which must all come after those added so
// far, as Add would. A group of smallGroup records or more is taken over,
// not copied: its buffer becomes the Sorter's, counted in the budget, and
// g is given instead a buffer the Sorter no longer needs (one it spilled),
// or none. Either way g can be grouped into again when AddGroup returns.
// Taking the buffer saves copying every record once more on the one
// goroutine that feeds the Sorter, and the first touch of fresh memory
// happens where the group was made, on the goroutines that scan.
func (s *Sorter) AddGroup(g *Group) error {
	if s.done {
		return errFinished
	}
	n := len(g.recs)
	if n == 0 {
		return nil
	}
	if g.first < s.next {
		return fmt.Errorf("%w: offset %d after %d", ErrOrder, g.first, s.next-1)
	}
	if n < smallGroup {
		// An arena of its own would cost 4 KiB of bookkeeping for these
		// few records: stage them, as Add would. The distribution is
		// stable, so each partition's records keep their order.
		if err := s.stageRecords(g.recs, false); err != nil {
			return err
		}
		s.next = g.last + 1
		return nil
	}
	if err := s.distribute(); err != nil { // staged records come first
		return err
	}
	// A background spill that has ended turns its arenas' buffers into
	// spares. Those that would leave less than the room for the next one
	// go to the garbage collector.
	if ended, err := s.collectSpill(false); err != nil {
		return err
	} else if ended {
		s.trimSpares(s.limit - s.room())
	}
	// g gets a spare buffer if the Sorter has one: it leaves the budget
	// for the caller's, as g's own buffer joins it.
	recs := g.recs
	g.recs = s.takeSpare()
	need := int64(cap(recs))*recordBytes + arenaBytes
	if s.mem+need > s.limit {
		// Spilling arenas of groups turns their buffers into spares,
		// still counted: one goes to g, the rest wait for the next
		// groups, unless the budget needs their room now.
		running := s.bg != nil
		target, err := s.syncTarget(need)
		if err != nil {
			return err
		}
		if !running && target < s.heldBytes() {
			// Full, with no background spill to wait for: the records
			// came faster than InputDone said, and restFits is not to be
			// trusted from now on.
			s.lowEstimate = true
		}
		if err := s.spillArenas(target); err != nil {
			return err
		}
		if g.recs == nil {
			g.recs = s.takeSpare()
		}
		if s.mem+need > s.limit {
			s.dropSpares()
		}
	}
	a := &arena{recs: recs, start: g.start, block: &block{buf: recs, used: n, refs: 1, adopted: true}}
	s.arenas = append(s.arenas, a)
	s.mem += need
	s.stats.PeakBytes = max(s.stats.PeakBytes, s.mem)
	s.next = g.last + 1
	s.n += int64(n)
	s.stats.Records += int64(n)
	// With several threads, a spill starts in the background once the
	// budget is all but full and no spare is left to hand back (see
	// background.go), unless the records still to come fit (restFits).
	if s.opts.Threads > 1 && s.bg == nil && len(s.spares) == 0 && s.mem > s.limit-s.room() && !s.restFits() {
		return s.startSpill(s.spillTarget())
	}
	return nil
}

// takeSpare returns a buffer of a spilled group, no longer counted, or nil.
func (s *Sorter) takeSpare() []Record {
	k := len(s.spares)
	if k == 0 {
		return nil
	}
	b := s.spares[k-1]
	s.spares[k-1] = nil
	s.spares = s.spares[:k-1]
	s.mem -= int64(cap(b)) * recordBytes
	return b
}

// dropSpares lets the garbage collector have the buffers of spilled groups
// that no group has taken back.
func (s *Sorter) dropSpares() {
	s.trimSpares(0) // spares are counted: while any is left, s.mem > 0
}
