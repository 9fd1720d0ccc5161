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
	t.Run("Format2", testForcedCollisions)
	t.Run("Format1", func(t *testing.T) { useFlat(t); testForcedCollisions(t) })
}

func testForcedCollisions(t *testing.T) {
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
		// Count reads the rows a format 2 index has for the fingerprint:
		// exact. Format 1's Count reads no rows, so it counts the whole
		// colliding run.
		want := int64(0)
		if testFlat {
			want = int64(ix.main.h.Records)
		}
		if n, err := ix.Count([]byte("missing")); err != nil || n != want {
			t.Fatalf("Count = %d, %v; want %d", n, err, want)
		}
		ix.Close()
		res, err := Verify(context.Background(), p, nil)
		if err != nil || !res.Equal {
			t.Fatalf("Verify = %+v, %v", res, err)
		}
	}
}
