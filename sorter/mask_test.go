package sorter

import (
	"fmt"
	"testing"
)

// TestMaskHashes: a Sorter told to mask emits every record masked, sorted
// by (masked hash, offset), in memory and through spills, streamed huge
// partitions and sub-sorts, with one thread and more.
func TestMaskHashes(t *testing.T) {
	rng := newRand(11)
	inputs := []struct {
		name string
		recs []Record
	}{
		{"Uniform", genUniform(rng, 300_000)},
		{"HeavyKeys", genHeavy(rng, 600_000, 100, 2000)},
		{"EqualOnceMasked", genBits(rng, 400_000, rng.Uint64(), 0xffff)},
		{"SomeEqualOnceMasked", genBits(rng, 400_000, rng.Uint64(), 0xf_ffff_ffff)},
	}
	for _, in := range inputs {
		for _, f := range []int{32, 40} {
			mask := ^uint64(0) << uint(64-f)
			masked := make([]Record, len(in.recs))
			for i, r := range in.recs {
				masked[i] = Record{Hash: r.Hash & mask, Offset: r.Offset}
			}
			want := reference(masked)
			for _, c := range []struct {
				limit   int64
				threads int
			}{{0, 1}, {0, 2}, {2 << 20, 1}, {2 << 20, 2}} {
				t.Run(fmt.Sprintf("%s/F=%d/limit=%d/threads=%d", in.name, f, c.limit, c.threads), func(t *testing.T) {
					s := New(Options{MemLimit: c.limit, Threads: c.threads, TmpDir: t.TempDir()})
					defer s.Close()
					s.MaskHashes(mask)
					addInBatches(t, s, in.recs, []int{100_000})
					checkSorted(t, finishAll(t, s), want)
				})
			}
		}
	}
}
