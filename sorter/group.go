package sorter

import "fmt"

// A Distributor groups records by partition, the work Add does when its
// staging buffer fills, on any goroutine: a parallel scan groups each chunk
// on the worker that scanned it, and the Sorter only copies the groups in.
// Each goroutine needs its own Distributor.
type Distributor struct {
	digit digitShifts
	cnt   *[maxBuckets]int
}

// A Group is records grouped by partition, ready for [Sorter.AddGroup].
// Its buffer is reused by the next [Distributor.Group] into it.
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
		g.recs = make([]Record, len(recs), len(recs)+len(recs)/4) // room for a somewhat larger chunk next time
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

// smallGroup is the fewest records that AddGroup gives an arena of their
// own; smaller groups are staged.
const smallGroup = 4096

// AddGroup adds the records of g, which must all come after those added so
// far, as Add would. It copies them: g can be reused when it returns.
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
	a, err := s.newArena(n)
	if err != nil {
		return err
	}
	copy(a.recs, g.recs)
	a.start = g.start
	s.next = g.last + 1
	s.n += int64(n)
	s.stats.Records += int64(n)
	return nil
}
