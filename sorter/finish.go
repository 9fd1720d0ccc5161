package sorter

// Finish calls emit with all added records sorted by (Hash, Offset), in order, in batches of
// at most 65536 records. A batch is only valid during the call: emit must not keep it or
// modify it. With Threads above 1, emit is called from the goroutines that sort, one call
// at a time. Finish stops at emit's first error and returns it unchanged. Afterwards the
// Sorter holds no memory and can only be closed; after a Finish that succeeded, the spill
// files are already being deleted, and Close waits for that.
//
// Partitions are finished in order, each in one of three ways:
//
//   - it fits, twice over, in the memory budget: its records are gathered into one buffer,
//     from the arenas in memory and the generations in the spill files, and radix-sorted;
//   - it does not, and all its hashes are equal (one huge key): its records are already in
//     (Hash, Offset) order, since they were added in Offset order, so they are streamed;
//   - it does not, and its hashes differ: it is distributed again, by the next hash bits,
//     into a sub-Sorter with the same budget, which finishes it the same way.
func (s *Sorter) Finish(emit func(batch []Record) error) error {
	if s.done {
		return errFinished
	}
	s.done = true
	defer s.dropMemory()
	if _, err := s.collectSpill(true); err != nil {
		return err
	}
	if err := s.distribute(); err != nil {
		return err
	}
	s.release(s.stage)
	s.stage = nil

	// Plan: the largest partition sorted in memory sets the size of the gather and scratch
	// buffers, a pair per sort in flight; spill the arenas if they and the buffers would not
	// fit together, and sort fewer partitions at once if the buffers alone would not.
	var sizes [partitions]int64
	for d := range sizes {
		sizes[d] = s.partitionSize(d)
		if s.fits(sizes[d]) {
			s.largest = max(s.largest, sizes[d])
		}
	}
	s.dropFree()
	// With several workers, each has two pairs if the arenas fit beside
	// them, so that it sorts on while a partition it sorted waits to be
	// emitted; spilling arenas to make room for them would cost more.
	pair := 2 * s.largest * recordBytes
	workers := max(1, s.opts.Threads)
	sets := workers
	if workers > 1 && s.mem+2*int64(workers)*pair <= s.limit {
		sets = 2 * workers
	}
	if pair > 0 {
		sets = int(max(1, min(int64(sets), s.limit/pair)))
		workers = min(workers, sets)
	}
	need := int64(sets) * pair
	if s.mem+need > s.limit { // s.mem is the arenas now
		if err := s.spillArenas(s.limit - need); err != nil {
			return err
		}
		s.dropFree()
	}
	s.stats.PeakBytes = max(s.stats.PeakBytes, s.mem+need)
	if s.spill != nil {
		if err := s.spill.flush(); err != nil {
			return err
		}
	}
	out := batcher{emit: emit}
	var err error
	if workers > 1 {
		err = s.finishParallel(sizes[:], workers, sets, out)
	} else {
		err = s.finishInOrder(sizes[:], out)
	}
	if err == nil && s.spill != nil {
		s.spill.startRemove() // read through: the files go while the caller writes its last batches out
	}
	return err
}

// finishInOrder finishes the partitions as Finish does, one after the other.
func (s *Sorter) finishInOrder(sizes []int64, out batcher) error {
	for d, n := range sizes {
		var err error
		switch {
		case n == 0:
		case s.fits(n):
			err = s.sortInMemory(d, n, out)
		default:
			err = s.finishLarge(d, out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// partitionSize returns how many records partition d holds.
func (s *Sorter) partitionSize(d int) int64 {
	var n int64
	for _, a := range s.arenas {
		n += int64(a.start[d+1] - a.start[d])
	}
	for i := range s.gens {
		n += s.gens[i].part[d].n
	}
	return n
}

// fits reports whether n records can be sorted in memory: gathered, and a scratch buffer as
// large, within the budget (which has the floor of an arena).
func (s *Sorter) fits(n int64) bool {
	return 2*n*recordBytes <= max(s.limit, minArenaBytes)
}

// sortInMemory gathers partition d (n records) into the Sorter's buffers, sorts it and
// emits it.
func (s *Sorter) sortInMemory(d int, n int64, out batcher) error {
	if s.scratch == nil { // allocated once, for the largest partition
		s.scratch = make([]Record, 2*s.largest)
	}
	sorted, err := s.gatherSort(d, n, s.scratch, &s.radix)
	if err != nil {
		return err
	}
	return out.add(sorted)
}

// gatherSort gathers partition d (n records) into buf, which holds two partitions of the
// largest size, sorts it with r and returns it. It only reads the Sorter, so several
// goroutines can run it at once with their own buf and r.
func (s *Sorter) gatherSort(d int, n int64, buf []Record, r *radix) ([]Record, error) {
	gather, scratch := buf[:n], buf[s.largest:][:n]
	at := int64(0)
	for i := range s.gens {
		p := s.gens[i].part[d]
		if err := s.spill.read(d, p.off, gather[at:at+p.n]); err != nil {
			return nil, err
		}
		at += p.n
	}
	for _, a := range s.arenas {
		at += int64(copy(gather[at:], a.recs[a.start[d]:a.start[d+1]]))
	}
	s.maskHashes(gather)
	r.sort(gather, scratch, 64-s.shift-s.digitBits, false, 0) // the partition digit is shared
	return gather, nil
}

// finishLarge finishes partition d, too large to sort in memory: it streams it if all its
// hashes are equal, and sorts it with a sub-Sorter on the next hash bits otherwise.
func (s *Sorter) finishLarge(d int, out batcher) error {
	var first uint64
	var diff uint64
	seen := false
	err := s.eachRun(d, func(recs []Record) error {
		if !seen {
			first, seen = recs[0].Hash, true
		}
		for _, r := range recs {
			diff |= r.Hash ^ first
		}
		return nil
	})
	if err != nil {
		return err
	}
	if diff&s.mask == 0 {
		return s.eachRun(d, func(recs []Record) error {
			s.maskHashes(recs)
			return out.add(recs)
		})
	}
	// Give the sub-Sorter the whole budget: let go of the buffers, spill the arenas.
	s.stats.SubSorts++
	s.scratch = nil
	if err := s.spillArenas(0); err != nil {
		return err
	}
	if c := s.cur; c != nil && c.refs == 0 {
		s.release(c.buf)
		s.cur = nil
	}
	s.dropFree()
	if err := s.spill.flush(); err != nil {
		return err
	}
	sub := newSorter(s.opts, s.shift+partitionBits, s.stats)
	defer sub.Close()
	// Masked before they are distributed again: records that are equal
	// once masked must share a partition, whatever the masked bits said.
	err = s.eachRun(d, func(recs []Record) error {
		s.maskHashes(recs)
		return sub.Add(recs)
	})
	if err != nil {
		return err
	}
	return sub.Finish(out.add)
}

const streamRecords = 1 << 16 // records read from a spill file at a time when streaming

// eachRun calls fn with the records of partition d in Add order, in runs: spilled ones read
// into a buffer a piece at a time, then the ones in memory.
func (s *Sorter) eachRun(d int, fn func([]Record) error) error {
	var buf []Record
	for i := range s.gens {
		p := s.gens[i].part[d]
		for off, left := p.off, p.n; left > 0; {
			k := min(left, streamRecords)
			if buf == nil {
				buf = make([]Record, streamRecords)
			}
			if err := s.spill.read(d, off, buf[:k]); err != nil {
				return err
			}
			if err := fn(buf[:k]); err != nil {
				return err
			}
			off, left = off+k*recordBytes, left-k
		}
	}
	for _, a := range s.arenas {
		if seg := a.recs[a.start[d]:a.start[d+1]]; len(seg) > 0 {
			if err := fn(seg); err != nil {
				return err
			}
		}
	}
	return nil
}

// batcher hands records to emit in batches of at most emitBatchRecords.
type batcher struct {
	emit func([]Record) error
}

// add emits recs in batches.
func (b batcher) add(recs []Record) error {
	for len(recs) > 0 {
		k := min(len(recs), emitBatchRecords)
		if err := b.emit(recs[:k]); err != nil {
			return err
		}
		recs = recs[k:]
	}
	return nil
}
