package sorter

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/csvidx/csvidx/internal/prefault"
)

const (
	partitionBits    = 10                 // records are distributed by this many top hash bits: the widest scatter that stays quick out of cache
	partitions       = 1 << partitionBits // partitions of one Sorter
	firstStage       = 1 << 10            // records in the first staging buffer, so tiny inputs stay tiny
	maxArenaBytes    = 16 << 20           // records are staged and distributed in arenas of up to this
	minArenaBytes    = 4 << 10            // and at least this, however small the budget
	emitBatchRecords = 1 << 16            // Finish hands out 1 MiB batches, big enough to amortize a write
	recordBytes      = 16                 // size of a Record in memory and in a spill file

	// DefaultMemLimit is the memory budget of a Sorter whose Options give none.
	DefaultMemLimit = 1 << 30
)

var (
	// errFinished is returned by Add and Finish on a Sorter that was already finished or closed.
	errFinished = errors.New("sorter: Sorter used after Finish or Close")
	// ErrOrder is returned by Add when records do not come in ascending Offset order.
	ErrOrder = errors.New("sorter: records must be added in ascending Offset order")
)

// Options configures a Sorter.
type Options struct {
	// MemLimit bounds the bytes the Sorter keeps in memory: record buffers
	// while adding, and the buffers a partition is sorted in. Records beyond
	// it spill to temporary files. Zero means DefaultMemLimit.
	MemLimit int64
	// TmpDir is the directory of the spill files; the system's temporary
	// directory when empty.
	TmpDir string
	// TmpName names spill files where the system cannot make unnamed
	// files: TmpDir/TmpName.tmp-csvidx-HEX, unlinked as soon as it is
	// created. "csvidx-sort" when empty. Spill files have no name on
	// Linux, and vanish with the process however it ends.
	TmpName string
	// Threads sort partitions in parallel in Finish, and write spills to
	// as many files at once (up to 4); with 0 or 1, partitions are sorted
	// one after the other and spills go to one file. The output is the
	// same.
	Threads int
}

// Stats counts what a Sorter did, for tests and reports.
type Stats struct {
	Records        int64 // records added
	SpilledRecords int64 // records written to spill files, counted at each level
	SpillFiles     int   // spill files created, sub-sorts included
	SubSorts       int   // partitions too large to sort in memory, split again
	PeakBytes      int64 // the most record memory held at once
	Background     int   // spills written on a goroutine of their own while groups came in (AddGroup)
}

// Sorter accumulates records, added in ascending Offset order, and hands them back sorted by
// (Hash, Offset), within a memory budget. A Sorter is not safe for concurrent use. Its life
// is New, Add any number of times, Finish once, then Close (which may come at any point, and
// more than once; it removes the spill files).
type Sorter struct {
	limit     int64            // memory budget in bytes
	arena     int              // records per full arena
	shift     uint             // hash bits above this Sorter's partition digit, fixed by its parents
	digitBits uint             // width of the partition digit: partitionBits, or what is left of 64
	digit     digitShifts      // the partition digit
	opts      Options          // where to spill
	stage     []Record         // records added and not yet distributed, in Add order
	arenas    []*arena         // distributed records in memory, in Add order
	gens      []generation     // distributed records in the spill files, in Add order
	free      [][]Record       // full-size buffers no longer used, kept: fresh memory is slow to touch
	spares    [][]Record       // buffers of spilled groups, kept for AddGroup to hand back
	mem       int64            // bytes of buffers held: stage, blocks, free, spares
	bg        *backgroundSpill // a spill being written on another goroutine, or nil
	cur       *block           // the block new arenas are carved from

	n           int64  // records added
	inDone      int64  // input the records added so far come from, as InputDone last said
	inTotal     int64  // all the input, as InputDone last said
	lowEstimate bool   // the budget filled while restFits said the rest would fit
	next        uint64 // the least Offset the next record may have
	mask        uint64 // the hash bits Finish keeps (see MaskHashes)
	spill       *spillSet
	cnt         *[maxBuckets]int // histogram of a distribution
	stats       *Stats           // shared with sub-sorts
	done        bool

	scratch []Record // Finish's gather and sort buffers (two halves), kept across partitions
	largest int64    // records of the largest partition Finish sorts in memory
	radix   radix    // the radix sort's histograms, kept across partitions
}

// arena holds a run of added records grouped by partition: partition d is
// recs[start[d]:start[d+1]], in Add order. Its records live in a block,
// which holds the arenas of consecutive runs.
type arena struct {
	recs  []Record
	start [partitions + 1]int32
	block *block
}

// block is a buffer that arenas are carved from, in order, and that goes
// back to the free list when the last of them is spilled.
type block struct {
	buf     []Record
	used    int  // records carved out
	refs    int  // arenas in memory carved from it
	adopted bool // a group's buffer that AddGroup took over: one arena, as large as the group
}

// generation is a set of arenas written to the spill files together, partition by partition:
// partition d is part[d].n records at part[d].off in the spill file of its lane, in Add order.
type generation struct {
	part [partitions]struct{ off, n int64 }
}

// New returns an empty Sorter.
func New(opts Options) *Sorter {
	return newSorter(opts, 0, &Stats{})
}

func newSorter(opts Options, shift uint, stats *Stats) *Sorter {
	limit := opts.MemLimit
	if limit <= 0 {
		limit = DefaultMemLimit
	}
	w := uint(min(partitionBits, 64-shift))
	// The stage and the arena being filled take a quarter of the budget at most, but no less
	// than minArenaBytes: below that, per-arena bookkeeping would outweigh the records.
	arena := int(min(max(limit/8, minArenaBytes), maxArenaBytes) / recordBytes)
	return &Sorter{limit: limit, arena: arena, shift: shift, digitBits: w, digit: newDigit(64-shift, w), opts: opts, stats: stats, mask: ^uint64(0)}
}

// Add copies recs into the Sorter. Offsets must be ascending within and across calls, as the
// build produces them: that is what lets rows of one key, which share a hash, come out in
// file order without being compared, even when there are more of them than fit in memory.
// Add returns ErrOrder otherwise, and an error if spilling to disk fails.
func (s *Sorter) Add(recs []Record) error {
	if s.done {
		return errFinished
	}
	return s.stageRecords(recs, true)
}

// stageRecords appends recs to the staging buffer, distributing it whenever
// it is full. With check it returns ErrOrder for records out of Offset
// order, checking each piece just before copying it, while it is in cache.
func (s *Sorter) stageRecords(recs []Record, check bool) error {
	for len(recs) > 0 {
		if len(s.stage) == cap(s.stage) {
			if err := s.makeRoom(); err != nil {
				return err
			}
		}
		k := min(len(recs), cap(s.stage)-len(s.stage))
		if check {
			next := s.next
			for _, r := range recs[:k] {
				if r.Offset < next {
					return fmt.Errorf("%w: offset %d after %d", ErrOrder, r.Offset, next-1)
				}
				next = r.Offset + 1
			}
			s.next = next
		}
		s.stage = append(s.stage, recs[:k]...)
		s.n += int64(k)
		s.stats.Records += int64(k)
		recs = recs[k:]
	}
	return nil
}

// makeRoom makes room in a full staging buffer: a small one grows, a full-size one is
// distributed into an arena.
func (s *Sorter) makeRoom() error {
	if c := cap(s.stage); c < s.arena {
		old := s.stage
		stage := s.alloc(min(max(2*c, firstStage), s.arena))
		prefaultRecords(stage[:cap(stage)]) // filled unless the input ends first: at most twice what it holds
		s.stage = append(stage, old...)
		s.release(old)
		return nil
	}
	return s.distribute()
}

// distribute moves the staged records into a new arena, grouped by partition, with a stable
// scatter by the partition digit.
func (s *Sorter) distribute() error {
	if len(s.stage) == 0 {
		return nil
	}
	if s.cnt == nil {
		s.cnt = new([maxBuckets]int)
	}
	a, err := s.newArena(len(s.stage))
	if err != nil {
		return err
	}
	distributeInto(a.recs, &a.start, s.stage, s.cnt, s.digit)
	s.stage = s.stage[:0]
	return nil
}

// newArena appends an arena for n records, carved from the current block or a new one, and
// spills the oldest arenas first if a new block would exceed the budget.
func (s *Sorter) newArena(n int) (*arena, error) {
	b := s.cur
	if b == nil || len(b.buf)-b.used < n {
		need := int64(max(n, s.arena))*recordBytes + arenaBytes
		if over := s.mem + need - s.limit; over > 0 && len(s.free) == 0 && n <= s.arena {
			// Spill what the estimate says must go, and at least what is over.
			if err := s.spillArenas(min(s.spillTarget(), s.heldBytes()-over)); err != nil {
				return nil, err
			}
		}
		if c := s.cur; c != nil && c.refs == 0 { // nothing left in the old block
			s.release(c.buf)
		}
		b = &block{buf: s.alloc(max(n, s.arena))[:max(n, s.arena)]}
		s.cur = b
	}
	a := &arena{recs: b.buf[b.used : b.used+n : b.used+n], block: b}
	prefaultRecords(a.recs) // cheap where a reused block's pages are mapped in already
	b.used += n
	b.refs++
	s.arenas = append(s.arenas, a)
	s.mem += arenaBytes // its bookkeeping, counted so that many small arenas stay within the budget
	s.stats.PeakBytes = max(s.stats.PeakBytes, s.mem)
	return a, nil
}

// arenaBytes is the memory an arena takes besides its records.
const arenaBytes = int64(unsafe.Sizeof(arena{}))

// alloc returns an empty buffer for n records: a free full-size one when n fits, else new
// memory, which is counted.
func (s *Sorter) alloc(n int) []Record {
	if n <= s.arena && len(s.free) > 0 {
		b := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		return b[:0]
	}
	s.mem += int64(n) * recordBytes
	s.stats.PeakBytes = max(s.stats.PeakBytes, s.mem)
	return make([]Record, 0, n)
}

// newRecords returns a buffer for c records with its first n in use and
// mapped in ahead: see [prefaultRecords]. The rest faults in only if used.
func newRecords(n, c int) []Record {
	recs := make([]Record, n, c)
	prefaultRecords(recs)
	return recs
}

// prefaultRecords maps in the memory of recs, about to be written (see
// package prefault): the build's fresh record buffers, most of its budget,
// would otherwise take a page fault every 256 records. Only the records
// about to be written: a block's tail that no arena takes stays unmapped.
func prefaultRecords(recs []Record) { prefault.Write(asBytes(recs)) }

// release gives a buffer back: full-size ones to the free list, still counted; others to
// the garbage collector.
func (s *Sorter) release(b []Record) {
	if cap(b) == s.arena {
		s.free = append(s.free, b[:0])
		return
	}
	s.mem -= int64(cap(b)) * recordBytes
}

// dropFree lets the garbage collector have the free buffers.
func (s *Sorter) dropFree() {
	s.mem -= int64(len(s.free)) * int64(s.arena) * recordBytes
	s.free = nil
	s.dropSpares()
}

// spillArenas writes the oldest arenas in memory to the spill files as one generation, until
// at most target bytes of arenas are left in memory: partition by partition, each
// partition's records from every spilled arena in Add order. The records kept in memory are
// all newer than the spilled ones, so reading generations, then arenas, keeps Add order.
// The spilled buffers are kept for reuse. A spill running in the background ends first.
func (s *Sorter) spillArenas(target int64) error {
	if _, err := s.collectSpill(true); err != nil {
		return err
	}
	k := s.oldestOver(target)
	if k == 0 {
		return nil
	}
	if err := s.openSpill(); err != nil {
		return err
	}
	out := s.arenas[:k]
	var g generation
	if err := s.spill.writeGeneration(&g, out, nil); err != nil {
		return err
	}
	s.retire(out, g)
	s.dropOldest(k)
	return nil
}

// oldestOver returns how many of the oldest arenas must go for at most target bytes of
// arenas to be left in memory.
func (s *Sorter) oldestOver(target int64) int {
	held := s.heldBytes()
	k := 0
	for ; k < len(s.arenas) && held > target; k++ {
		held -= int64(len(s.arenas[k].recs)) * recordBytes
	}
	return k
}

// heldBytes returns the bytes of the records of the arenas in memory.
func (s *Sorter) heldBytes() int64 {
	held := int64(0)
	for _, a := range s.arenas {
		held += int64(len(a.recs)) * recordBytes
	}
	return held
}

// dropOldest removes the k oldest arenas from the list of those in memory.
func (s *Sorter) dropOldest(k int) {
	n := copy(s.arenas, s.arenas[k:])
	clear(s.arenas[n:]) // or the spilled arenas' buffers stay reachable
	s.arenas = s.arenas[:n]
}

// openSpill creates the spill files (one per thread, up to maxLanes) if there are none yet.
func (s *Sorter) openSpill() error {
	if s.spill != nil {
		return nil
	}
	lanes := min(max(s.opts.Threads, 1), maxLanes)
	sp, err := createSpills(s.opts, lanes, s.spillBuffer(lanes))
	if err != nil {
		return err
	}
	s.spill = sp
	s.stats.SpillFiles += lanes
	return nil
}

// retire accounts for arenas written to the spill files as generation g: their bookkeeping
// leaves the budget, and the buffers no arena in memory uses any more are kept for reuse
// (counted) or let go.
func (s *Sorter) retire(out []*arena, g generation) {
	for _, a := range out {
		s.stats.SpilledRecords += int64(len(a.recs))
		s.mem -= arenaBytes
		b := a.block
		b.refs--
		if b.refs == 0 {
			switch {
			case b == s.cur:
				b.used = 0 // the current block is empty again: carve from its start
			case b.adopted:
				s.spares = append(s.spares, b.buf[:0]) // still counted
			default:
				s.release(b.buf)
			}
		}
	}
	s.gens = append(s.gens, g)
}

// spillBuffer returns the size of the write buffer of each of lanes spill files: large
// enough to make few system calls of many small segments, together a small share of the
// budget.
func (s *Sorter) spillBuffer(lanes int) int {
	return int(min(max(s.limit/16/int64(lanes), 4<<10), 1<<20))
}

// Len returns the number of records the Sorter holds: all records added so far, until
// Finish or Close, after which it is 0.
func (s *Sorter) Len() int64 {
	return s.n
}

// Stats returns what the Sorter (with its sub-sorts) did so far.
func (s *Sorter) Stats() Stats {
	return *s.stats
}

// Close releases the Sorter's memory and removes its spill files. It is safe to call more
// than once, and before or after Finish.
func (s *Sorter) Close() error {
	s.done = true
	if s.bg != nil {
		s.bg.stop.Store(true) // no use finishing it: the files go
		s.collectSpill(true)  // its error, if any, was the build's or is moot now
	}
	s.dropMemory()
	if s.spill == nil {
		return nil
	}
	err := s.spill.remove()
	s.spill = nil
	return err
}

// dropMemory lets go of every buffer; the spill files stay until Close.
func (s *Sorter) dropMemory() {
	s.stage, s.arenas, s.free, s.spares, s.scratch, s.cnt, s.cur = nil, nil, nil, nil, nil, nil, nil
	s.n, s.mem = 0, 0
}
