package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestRowsFind: Find finds, for every key of a batch, the rows Each finds,
// in the same order, whatever the limit: at least the first key when its
// candidates are within it, every key when the limit is past all of the
// CSV's rows, and none when the first key alone has more, as a batch of
// repeated, absent and nasty keys goes through in pieces. Over a CSV with
// a tail, and with one hash for every key (every row a candidate of
// every key).
func TestRowsFind(t *testing.T) {
	t.Run("Generated", func(t *testing.T) { testRowsFind(t, false) })
	t.Run("Tail", func(t *testing.T) { testRowsFind(t, true) })
	t.Run("OneHash", func(t *testing.T) {
		useHash(t, func([]byte) uint64 { return 0x5eed })
		testRowsFind(t, false)
	})
}

func testRowsFind(t *testing.T, tail bool) {
	r := rand.New(rand.NewPCG(43, 7))
	g := makeCSV(r, 2000, 1, ',', true, true)
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	rowCount := len(g.rows)
	if tail {
		more := makeCSV(r, 300, 1, ',', false, false)
		appendCSV(t, p, "\n"+more.data)
		if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
			t.Fatal(err)
		}
		rowCount += len(more.rows)
	}
	ix := openIndex(t, p, nil)
	if tail && ix.tail == nil {
		t.Fatal("no tail after the update")
	}
	rows, err := ix.Rows()
	if err != nil {
		t.Fatal(err)
	}
	each, err := ix.Rows()
	if err != nil {
		t.Fatal(err)
	}
	pool := append(slices.Clone(nastyKeys), "missing", "absent too")
	for i := range 50 {
		pool = append(pool, strconv.Itoa(i))
	}
	for _, limit := range []int{1, 2, 7, 100, 1 << 30} {
		keys := make([][]byte, 300)
		for i := range keys {
			keys[i] = []byte(pool[r.IntN(len(pool))])
		}
		err := ix.Guard(func() error {
			for pos := 0; pos < len(keys); {
				n, err := rows.Find(keys[pos:], limit)
				if err != nil {
					return err
				}
				if limit > rowCount && n != len(keys)-pos {
					return fmt.Errorf("limit %d, past the CSV's %d rows: Find found %d of %d keys", limit, rowCount, n, len(keys)-pos)
				}
				if n == 0 {
					if c := candidateCount(t, ix, keys[pos]); c <= limit {
						return fmt.Errorf("limit %d: Find found none, and the first key %q has %d candidates", limit, keys[pos], c)
					}
					pos++ // as a join does, with Each
					continue
				}
				for i := range n {
					var got []Span
					for _, f := range rows.Found(i) {
						got = append(got, Span{f.Start, f.End, f.Terminated, ix.Data()[f.Start:f.End]})
					}
					want := eachSpans(t, ix, each, keys[pos+i])
					if fmt.Sprint(got) != fmt.Sprint(want) {
						return fmt.Errorf("limit %d: Find gives key %q (%d of the batch) %d rows at %v; Each %d at %v",
							limit, keys[pos+i], pos+i, len(got), starts(got), len(want), starts(want))
					}
				}
				pos += n
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// candidateCount returns how many candidate rows key has in ix's index
// files.
func candidateCount(t *testing.T, ix *Index, key []byte) int {
	n := 0
	h := ix.hash(key)
	err := ix.eachPart(func(p *part, _ uint64) error {
		return p.offsets(h, p.locate(h), func(offs []uint64) error { n += len(offs); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSortByHash: sortByHash orders hashes by their top 16 bits, keeping
// every one.
func TestSortByHash(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 100, 5000} {
		a := make([]hashAt, n)
		for i := range a {
			a[i] = hashAt{r.Uint64(), i}
		}
		sorted, _ := sortByHash(slices.Clone(a), nil)
		if len(sorted) != n {
			t.Fatalf("%d hashes sorted into %d", n, len(sorted))
		}
		for i := 1; i < n; i++ {
			if sorted[i-1].h>>48 > sorted[i].h>>48 {
				t.Fatalf("%x before %x", sorted[i-1].h, sorted[i].h)
			}
		}
		seen := make([]bool, n)
		for _, x := range sorted {
			if seen[x.i] || a[x.i] != x {
				t.Fatalf("%+v twice, or not as given", x)
			}
			seen[x.i] = true
		}
	}
}

// starts returns where each of spans starts.
func starts(spans []Span) []int {
	var s []int
	for _, sp := range spans {
		s = append(s, sp.Start)
	}
	return s
}
