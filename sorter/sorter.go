package sorter

import "errors"

const (
	topDigitBits      = memDigitBits      // Add counts the first digit; it is scattered from memory, so no wider than that
	topBuckets        = 1 << topDigitBits // number of buckets of the first digit
	firstBlockRecords = 1 << 12           // first block: 64 KiB, so tiny inputs stay tiny
	maxBlockRecords   = 1 << 20           // blocks double up to 16 MiB; growing never copies records
	emitBatchRecords  = 1 << 16           // Finish hands out 1 MiB batches, big enough to amortize a write
)

// errFinished is returned by Add and Finish on a Sorter that was already finished or closed.
var errFinished = errors.New("sorter: Sorter used after Finish or Close")

// Options configures a Sorter. It is empty for now; a memory limit, a directory for spilled
// runs and a thread count will be added here when the sort learns to spill to disk.
type Options struct{}

// Sorter accumulates records added in ascending Offset order and hands them back sorted by
// (Hash, Offset). Records are kept in memory, in blocks that are never copied to grow.
// A Sorter is not safe for concurrent use. Its life is New, Add any number of times, Finish
// once, then Close (which may come at any point, and more than once).
type Sorter struct {
	blocks [][]Record        // records in Add order; every block but the last is full
	n      int64             // records added
	top    [topBuckets]int64 // histogram of the top digit of every added hash
	done   bool              // Finish or Close was called
}

// New returns an empty Sorter.
func New(opts Options) *Sorter {
	_ = opts // no options yet
	return &Sorter{}
}

// Add copies recs into the Sorter. The build adds records in ascending Offset order across
// calls, which lets equal hashes come out in Offset order without being compared; records
// added in another order are still sorted correctly, only more slowly. The error is always nil
// for now (spilling to disk will report I/O errors here), except after Finish or Close.
func (s *Sorter) Add(recs []Record) error {
	if s.done {
		return errFinished
	}
	for len(recs) > 0 {
		last := len(s.blocks) - 1
		if last < 0 || len(s.blocks[last]) == cap(s.blocks[last]) {
			size := firstBlockRecords
			if last >= 0 {
				size = min(2*cap(s.blocks[last]), maxBlockRecords)
			}
			s.blocks = append(s.blocks, make([]Record, 0, size))
			last++
		}
		blk := s.blocks[last]
		k := min(len(recs), cap(blk)-len(blk))
		s.blocks[last] = append(blk, recs[:k]...)
		for _, r := range recs[:k] {
			s.top[r.Hash>>(64-topDigitBits)]++
		}
		s.n += int64(k)
		recs = recs[k:]
	}
	return nil
}

// Len returns the number of records the Sorter holds: all records added so far, until
// Finish or Close, after which it is 0.
func (s *Sorter) Len() int64 {
	return s.n
}

// Finish calls emit with all added records sorted by (Hash, Offset), in order, in batches of
// at most 65536 records. A batch is only valid during the call: emit must not keep it or
// modify it. Finish stops at emit's first error and returns it unchanged. Afterwards the
// Sorter holds no memory and can only be closed.
func (s *Sorter) Finish(emit func(batch []Record) error) error {
	if s.done {
		return errFinished
	}
	s.done = true
	defer s.release()
	if s.n == 0 {
		return nil
	}

	// First pass: a stable scatter by the top digit from the blocks into one array. The
	// histogram was counted by Add; turn it into bucket starts.
	var pos [maxBuckets]int
	sum, maxBucket := 0, 0
	for d, c := range s.top {
		pos[d] = sum
		sum += int(c)
		maxBucket = max(maxBucket, int(c))
	}
	sorted := make([]Record, sum)
	spare := s.blocks[0]
	top := newDigit(64, topDigitBits)
	for i, blk := range s.blocks {
		scatter(sorted, blk, &pos, top)
		if cap(blk) > cap(spare) {
			spare = blk
		}
		s.blocks[i] = nil
	}
	s.blocks = nil

	// The largest block, already scattered, is scratch for the largest bucket, unless skewed
	// input made one bucket larger than a block.
	var scratch []Record
	if maxBucket <= cap(spare) {
		scratch = spare[:maxBucket]
	} else {
		scratch = make([]Record, maxBucket)
	}

	// Sort each bucket on the remaining bits and emit it while it is still in cache.
	var r radix
	start, emitted := 0, 0
	for _, end := range pos[:topBuckets] {
		r.sort(sorted[start:end], scratch[:end-start], 64-topDigitBits, false, 0)
		start = end
		for start-emitted >= emitBatchRecords {
			if err := emit(sorted[emitted : emitted+emitBatchRecords]); err != nil {
				return err
			}
			emitted += emitBatchRecords
		}
	}
	if emitted < len(sorted) {
		return emit(sorted[emitted:])
	}
	return nil
}

// Close releases the Sorter's memory (once spilling exists, it will also remove temporary
// files). It is safe to call more than once, and before or after Finish. It returns nil.
func (s *Sorter) Close() error {
	s.done = true
	s.release()
	return nil
}

// release drops every buffer the Sorter holds.
func (s *Sorter) release() {
	s.blocks = nil
	s.n = 0
	s.top = [topBuckets]int64{}
}
