package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
)

// TestLowerBound checks the interpolation search against sort.Search on
// indexes of many pages whose hashes are uniform, clustered, heavy with
// repeats, or piled at the extremes, where interpolation guesses badly.
func TestLowerBound(t *testing.T) {
	useFlat(t) // format 1's record search
	hashes := map[string]func([]byte) uint64{
		"uniform":   xxh3.Hash,
		"clustered": func(k []byte) uint64 { return xxh3.Hash(k) >> 40 << 40 },
		"heavy":     func(k []byte) uint64 { return xxh3.Hash(k) % 7 * (math.MaxUint64 / 7) },
		"extremes": func(k []byte) uint64 {
			if h := xxh3.Hash(k); h%2 == 0 {
				return h % 1000
			} else {
				return math.MaxUint64 - h%1000
			}
		},
		"low": func(k []byte) uint64 { return xxh3.Hash(k) % 5000 },
	}
	var csv strings.Builder
	csv.WriteString("id,key\n")
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&csv, "%d,k%d\n", i, r.IntN(3000))
	}
	p := writeCSV(t, csv.String())
	for name, hash := range hashes {
		t.Run(name, func(t *testing.T) {
			useHash(t, hash)
			build(t, p, &BuildOptions{Key: "key"})
			ix, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			n := int(ix.main.h.Records)
			probe := func(h uint64) {
				want := uint64(sort.Search(n, func(i int) bool { return ix.main.r.HashAt(uint64(i)) >= h }))
				if got := ix.main.r.LowerBound(h); got != want {
					t.Fatalf("lowerBound(%#x) = %d, want %d", h, got, want)
				}
			}
			for _, h := range []uint64{0, 1, math.MaxUint64, math.MaxUint64 - 1} {
				probe(h)
			}
			for i := 0; i < n; i += 1 + r.IntN(40) {
				h := ix.main.r.HashAt(uint64(i))
				probe(h)
				probe(h + 1)
				probe(h - 1)
			}
			for i := 0; i < 2000; i++ {
				probe(r.Uint64())
			}
			for i := 0; i < 3000; i += 7 {
				k := []byte("k" + strconv.Itoa(i))
				var rows int64
				if err := ix.Lookup(k, func([]byte) error { rows++; return nil }); err != nil {
					t.Fatal(err)
				}
				want := int64(strings.Count(csv.String(), ","+string(k)+"\n"))
				if rows != want {
					t.Fatalf("Lookup(%s) found %d rows, want %d", k, rows, want)
				}
			}
		})
	}
}
