package index

import (
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/sorter"
)

// Resources bound what a build (or a verify, which rebuilds) may use.
type Resources struct {
	// MemLimit bounds the bytes the build's index records take in memory;
	// beyond it they spill to temporary files and are sorted a part at a
	// time. Zero means 1 GiB. The index is the same at any limit.
	MemLimit int64
	// TmpDir is where spill files go: the index's directory when empty.
	// They have no name (on Linux; elsewhere their name is removed as
	// soon as they are created), so nothing of them outlives the process.
	TmpDir string
	// Threads scan and sort in parallel: 0 means one per core, 1 a
	// sequential build. The index is the same at any number.
	Threads int
}

// The ranges of Resources' fields.
const (
	// MaxMemLimit is the largest MemLimit: 1 TiB of MiB, far beyond any
	// machine, and small enough that a limit in MiB converts to bytes
	// without overflow.
	MaxMemLimit = 1 << 60
	// MaxThreads is the largest Threads. A build runs no more workers than
	// four per core, or than its file and memory budget have room for,
	// however many are asked for; a number beyond this one is a mistake.
	MaxThreads = 1024
)

// RangeError means a field of Resources is out of its range. The library
// states the facts; each front end words them with its own names for the
// fields (a flag, a keyword argument).
type RangeError struct {
	Field    string // the field: "MemLimit" or "Threads"
	Value    int64  // what it was
	Min, Max int64  // the range it must be in
	Note     string // why the range is what it is, when that helps; may be empty
}

func (e *RangeError) Error() string {
	msg := fmt.Sprintf("Resources.%s is %d: it must be from %d to %d", e.Field, e.Value, e.Min, e.Max)
	if e.Note != "" {
		msg += " (" + e.Note + ")"
	}
	return msg
}

// Validate checks that r's fields are in their ranges; Build, Update and
// Verify call it. The zero value is valid: every field's default.
func (r Resources) Validate() error {
	switch {
	case r.MemLimit < 0 || r.MemLimit > MaxMemLimit:
		return &RangeError{Field: "MemLimit", Value: r.MemLimit, Min: 0, Max: MaxMemLimit, Note: "0 for the default, 1 GiB"}
	case r.Threads < 0 || r.Threads > MaxThreads:
		return &RangeError{Field: "Threads", Value: int64(r.Threads), Min: 0, Max: MaxThreads, Note: "0 for one per core; a build uses at most four threads per core"}
	}
	return nil
}

// testTuning is what a test forces on every scan's plan (see tune in the
// tests); zero outside tests.
var testTuning chunked.Tuning

// plan splits the memory budget between the scan's chunks in flight, the
// index writer's buffers w (writerFree of them outside the budget; none for
// a verify) and the sort, for an index at idxPath of a CSV of size bytes.
func (r Resources) plan(idxPath string, w writerShape, size int64) (chunked.Plan, sorter.Options) {
	return r.planKeys(idxPath, w, size, 1)
}

// planKeys is plan for a scan that builds k indexes at once, each with a
// writer of shape w: the chunks in flight hold k records per row, and each
// index's sorter gets an equal share of what is left.
func (r Resources) planKeys(idxPath string, w writerShape, size int64, k int) (chunked.Plan, sorter.Options) {
	limit := r.MemBudget()
	plan := chunked.NewPlan(r.Threads, limit/int64(k), size, testTuning)
	dir := r.TmpDir
	if dir == "" {
		dir = filepath.Dir(idxPath)
	}
	grow := max(int64(w.ceiling)*int64(w.size)-writerFree, 0)
	per := (limit - int64(k)*(plan.Memory+grow)) / int64(k)
	return plan, sorter.Options{MemLimit: max(per, 1), TmpDir: dir, TmpName: spillName(idxPath), Threads: plan.Threads}
}

// writeShape returns the index writer's buffers: writes of 4 MiB from a
// budget of 512 MiB, of 1 MiB under it, as many at the start as make
// writerFree (two at least), and up to a sixty-fourth of the budget in all,
// 32 MiB at most, when the disk falls behind. What they take beyond
// writerFree comes out of the sort's share (see plan).
func (r Resources) writeShape() writerShape {
	limit := r.MemBudget()
	size := int64(smallWrite)
	if limit >= bigWriteBudget {
		size = bigWrite
	}
	first := max(writerFree/size, minBuffers)
	ceiling := min(max(limit/64/size, first), writerMost/size)
	return writerShape{size: int(size), first: int(first), ceiling: int(ceiling)}
}

// MemBudget returns the memory budget: MemLimit, or the default when zero.
func (r Resources) MemBudget() int64 {
	if r.MemLimit <= 0 {
		return sorter.DefaultMemLimit
	}
	return r.MemLimit
}

// ThreadCount returns how many threads a merge or a join may use:
// Threads, or one per core when zero.
func (r Resources) ThreadCount() int {
	if r.Threads > 0 {
		return r.Threads
	}
	return runtime.GOMAXPROCS(0)
}
