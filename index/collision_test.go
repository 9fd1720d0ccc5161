package index

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestForcedCollisions builds with a hash that sends every key to the same
// value: one run of records spanning many pages. Lookups must still print
// exactly each key's rows, because every candidate row's key is read and
// compared.
func TestForcedCollisions(t *testing.T) {
	useHash(t, func([]byte) uint64 { return 0x5eed })
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20; i++ {
		keyCol := r.IntN(2)
		g := makeCSV(r, 50+r.IntN(900), keyCol, ',', true, i%2 == 0)
		p := writeCSV(t, g.data)
		build(t, p, &BuildOptions{Key: strconv.Itoa(keyCol)})
		ix, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range append(nastyKeys, "missing") {
			if got, want := get(t, ix, k), g.want(k); got != want {
				t.Fatalf("Get(%q) with one hash for all keys =\n%q\nwant\n%q", k, got, want)
			}
		}
		// Count reads no rows, so it counts the whole colliding run.
		n, err := ix.Count([]byte("missing"))
		if err != nil || uint64(n) != ix.main.h.records {
			t.Fatalf("Count = %d, %v; want every record (%d)", n, err, ix.main.h.records)
		}
		ix.Close()
		res, err := Verify(context.Background(), p, nil)
		if err != nil || !res.Equal {
			t.Fatalf("Verify = %+v, %v", res, err)
		}
	}
}
