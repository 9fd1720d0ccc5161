package chunked

import (
	"runtime"
	"testing"
)

// TestPlanBounded: however many threads are asked for, a scan gets no more
// workers than maxPerCore per core, than there are chunks, or than the
// budget's share for chunks holds; and the chunks in flight fit that share.
func TestPlanBounded(t *testing.T) {
	cores := runtime.NumCPU()
	for _, c := range []struct {
		name    string
		threads int
		budget  int64
		size    int64
		most    int // workers at most
	}{
		{"Absurd", 100_000, 1 << 30, 1 << 40, maxPerCore * cores},
		{"TwoRows", 1000, 1 << 30, 20, 1},
		{"FewChunks", 64, 1 << 30, 3 << 20, maxPerCore * cores},
		{"TinyBudget", 1000, 1 << 20, 1 << 40, 1},
		{"SmallBudget", 1000, 64 << 20, 1 << 40, int(64 << 20 / 16 / floorPerWorker)},
		{"Default", 0, 1 << 30, 1 << 40, cores},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := NewPlan(c.threads, c.budget, c.size, Tuning{})
			if p.Threads < 1 || p.Threads > c.most {
				t.Fatalf("%d threads for %d asked, want 1 to %d", p.Threads, c.threads, c.most)
			}
			if p.Threads > 1 {
				if chunks := (c.size + int64(p.ChunkBytes) - 1) / int64(p.ChunkBytes); int64(p.Threads) > chunks {
					t.Fatalf("%d threads for %d chunks", p.Threads, chunks)
				}
				window := int64(p.Threads*chunksPerWorker + p.Threads)
				if mem := window * int64(p.ChunkRecords) * 33 * recordMem / 16; mem > c.budget/16 {
					t.Fatalf("%d threads: the chunks in flight may take %d bytes, more than the share %d", p.Threads, mem, c.budget/16)
				}
			}
		})
	}
}

// TestPlanTuning: a tuning forces what it says, and only that.
func TestPlanTuning(t *testing.T) {
	def := NewPlan(2, 1<<30, 1<<30, Tuning{})
	if def.PauseAt != defaultPauseAt {
		t.Fatalf("PauseAt %d untuned, want %d", def.PauseAt, defaultPauseAt)
	}
	p := NewPlan(2, 1<<30, 1<<30, Tuning{ChunkBytes: 100, ChunkRecords: 3, PauseAt: 5})
	if p.ChunkBytes != 100 || p.ChunkRecords != 3 || p.PauseAt != 5 || p.Threads != def.Threads || p.Memory != def.Memory {
		t.Fatalf("tuned plan %+v; untuned %+v", p, def)
	}
	if p := NewPlan(2, 1<<30, 1<<30, Tuning{PauseAt: 5, NeverPause: true}); p.PauseAt != 0 {
		t.Fatalf("NeverPause: PauseAt %d, want 0", p.PauseAt)
	}
}
