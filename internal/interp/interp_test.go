package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestLowerBound holds LowerBound to sort.Search on sorted arrays whose
// values are uniform, clustered, repeated, or piled at the ends, where
// interpolation guesses badly, at block sizes from 1 up.
func TestLowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() uint64{
		"uniform":   r.Uint64,
		"clustered": func() uint64 { return r.Uint64() >> 40 << 40 },
		"repeated":  func() uint64 { return r.Uint64() % 4 * (math.MaxUint64 / 4) },
		"extremes": func() uint64 {
			if r.IntN(2) == 0 {
				return r.Uint64() % 100
			}
			return math.MaxUint64 - r.Uint64()%100
		},
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 7, 255, 256, 1000, 50000} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = gen()
			}
			slices.Sort(a)
			at := func(i uint64) uint64 { return a[i] }
			probes := []uint64{0, 1, math.MaxUint64 - 1, math.MaxUint64}
			for i := 0; i < 500 && n > 0; i++ {
				v := a[r.IntN(n)]
				probes = append(probes, v, v-1, v+1, r.Uint64())
			}
			for _, per := range []uint64{1, 16, 255} {
				for _, h := range probes {
					want := uint64(sort.Search(n, func(i int) bool { return a[i] >= h }))
					if got := LowerBound(uint64(n), per, h, at); got != want {
						t.Fatalf("%s, n=%d, block %d: LowerBound(%#x) = %d, want %d", name, n, per, h, got, want)
					}
				}
			}
		}
	}
}
