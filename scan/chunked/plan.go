package chunked

import (
	"runtime"
	"unsafe"

	"github.com/csvidx/csvidx/sorter"
)

// A Plan says how to split a scan between workers.
type Plan struct {
	// Threads is the number of workers; 1 scans sequentially.
	Threads int
	// ChunkBytes is the CSV bytes per chunk.
	ChunkBytes int
	// ChunkRecords is the records a chunk may hold; a worker stops there
	// and the stitcher scans the rest of the chunk.
	ChunkRecords int
	// Memory is what the chunks in flight may take, out of the budget.
	Memory int64
	// PauseAt is the number of wrong guesses among the last 16 that pause
	// the scanning from guesses (see admission); 0 never pauses.
	PauseAt int
	// WindowBytes is the bytes a scan reads at a time from a windowed
	// [Input]; 0 for a chunk and as much past it as a guess reads
	// (guessWindow), up to 4 MiB. Tests make it small.
	WindowBytes int
}

// Tuning forces on a plan what [NewPlan] would otherwise choose from the
// budget: tests make chunks of a few bytes, holding a few records, so that
// wrong guesses and full chunks are common. The zero value forces nothing.
type Tuning struct {
	ChunkBytes   int  // CSV bytes per chunk
	ChunkRecords int  // records a chunk may hold
	PauseAt      int  // Plan.PauseAt, when positive
	NeverPause   bool // PauseAt 0: every wrong guess is repaired
}

const (
	maxChunk        = 16 << 20 // CSV bytes per chunk, at most
	minChunk        = 64 << 10 // and at least, unless tuned
	rowBytes        = 8        // rows this long or longer never fill a chunk's share of records
	chunksPerWorker = 2        // chunks in flight per worker: one being scanned, one waiting to be stitched
	maxPerCore      = 4        // workers per core, at most

	recordMem = int64(unsafe.Sizeof(sorter.Record{})) // memory of one index record in a chunk
	// floorPerWorker is the memory the chunks of one worker in flight take
	// at their smallest (see planChunks).
	floorPerWorker = (chunksPerWorker + 1) * 33 * recordMem * (minChunk/rowBytes + 1) / 16
)

// NewPlan plans a scan of size CSV bytes with threads workers (0: one per
// core) within a memory budget, as tu forces. It never plans more workers
// than maxPerCore per core, than there are chunks, or than the budget's
// share for chunks holds at their smallest: a request beyond any of those
// gets fewer workers, and the same records.
func NewPlan(threads int, budget, size int64, tu Tuning) Plan {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	threads = min(threads, maxPerCore*runtime.NumCPU())
	if tu.ChunkBytes <= 0 && tu.ChunkRecords <= 0 {
		threads = min(threads, max(1, int(budget/16/floorPerWorker)))
	}
	for {
		p := planChunks(threads, budget, tu)
		if p.Threads == 1 || size <= 0 {
			return p
		}
		chunks := (size + int64(p.ChunkBytes) - 1) / int64(p.ChunkBytes)
		if chunks >= int64(threads) {
			return p
		}
		threads = max(1, int(chunks)) // fewer workers make bigger chunks: plan again
	}
}

// defaultPauseAt is Plan.PauseAt unless tuned: a wrong guess wastes the
// worker's scan of its chunk (a scan from a wrong start can cost several
// times a right one), and the stitcher must then scan the chunk again, in
// order, which everything after it waits for (the measurements are in
// docs/performance.md, "The parallel build").
const defaultPauseAt = 12

// planChunks sizes the chunks of a scan by threads workers within budget.
func planChunks(threads int, budget int64, tu Tuning) Plan {
	p := Plan{Threads: threads, PauseAt: defaultPauseAt}
	switch {
	case tu.NeverPause:
		p.PauseAt = 0
	case tu.PauseAt > 0:
		p.PauseAt = tu.PauseAt
	}
	if threads == 1 {
		return p
	}
	// Each chunk in flight holds its records twice: as scanned, and as
	// grouped with a sixteenth of room (see sorter.Distributor.Group). Rows
	// of rowBytes or more never fill a chunk: fewer than ChunkRecords of
	// them start in it.
	window := int64(threads*chunksPerWorker + threads)
	p.Memory = budget / 16
	p.ChunkRecords = int(max(p.Memory*16/(window*33*recordMem), minChunk/rowBytes+1))
	p.ChunkBytes = int(min(int64(p.ChunkRecords-1)*rowBytes, maxChunk))
	if tu.ChunkBytes > 0 {
		p.ChunkBytes = tu.ChunkBytes
	}
	if tu.ChunkRecords > 0 {
		p.ChunkRecords = tu.ChunkRecords
	}
	return p
}
