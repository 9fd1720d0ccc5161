package index

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source"
)

// TestPageRanges: an index file of which only the header page and the
// ranges PageRanges gives for a batch of keys are there (the rest zeros,
// as in a remote index fetched in part), with its fence, answers every key
// of the batch as the whole file does, for uniform hashes, runs of equal
// fingerprints over many pages (a heavy key; hashes that repeat), absent
// keys and keys at the ends; a key outside the batch fails with a page's
// checksum, never a wrong row. Without a usable fence, the ranges are all
// the record pages.
func TestPageRanges(t *testing.T) {
	for name, hash := range fenceHashes {
		t.Run(name, func(t *testing.T) {
			p, keys := fenceCSV(t, hash)
			whole, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer whole.Close()
			data, err := os.ReadFile(p + ".csvidx")
			if err != nil {
				t.Fatal(err)
			}
			fenceBytes, err := os.ReadFile(p + ".csvidx.fence")
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(62, 62))
			for round, n := range []int{1, 1, 2, 5, 50, 300} {
				batch := []string{keys[0], "absent"}[:min(n, 2)]
				for len(batch) < n {
					batch = append(batch, keys[r.IntN(len(keys))])
				}
				bkeys := make([][]byte, len(batch))
				for i, k := range batch {
					bkeys[i] = []byte(k)
				}
				part := make([]byte, len(data))
				copy(part[:format.PageSize], data)
				ranges := whole.PageRanges(bkeys)
				fetched := int64(0)
				for _, rg := range ranges {
					copy(part[rg.Off:rg.Off+rg.Len], data[rg.Off:])
					fetched += rg.Len
				}
				dir := t.TempDir()
				idx := filepath.Join(dir, "part.csvidx")
				os.WriteFile(idx, part, 0o644)
				os.WriteFile(idx+".fence", fenceBytes, 0o644)
				ix, err := Open(p, &Options{IndexPath: idx})
				if err != nil {
					t.Fatal(err)
				}
				if ix.main.fence == nil {
					t.Fatal("the fence of the part was not used")
				}
				for _, k := range batch {
					if got, want := get(t, ix, k), get(t, whole, k); got != want {
						t.Fatalf("round %d, key %q: %d bytes from the part, %d from the whole", round, k, len(got), len(want))
					}
				}
				if n <= 2 && fetched > 8*format.PageSize && batch[0] != keys[0] {
					t.Errorf("round %d: %d bytes of pages for %q", round, fetched, batch)
				}
				// A key whose pages were not fetched fails.
				for _, k := range keys {
					probe := [][]byte{[]byte(k)}
					if first := whole.PageRanges(probe)[0]; within(ranges, []ByteRange{{first.Off, format.PageSize}}) {
						continue // the page its run starts on was fetched
					}
					err := ix.Get(probe, func([]byte) error { return nil })
					if !errors.Is(err, format.ErrCorrupt) {
						t.Fatalf("round %d: key %q, whose page was not fetched: %v", round, k, err)
					}
					break
				}
				ix.Close()
			}
			without, err := Open(p, &Options{NoFence: true})
			if err != nil {
				t.Fatal(err)
			}
			defer without.Close()
			if rs := without.PageRanges([][]byte{[]byte(keys[1])}); len(rs) != 1 || rs[0].Off != format.PageSize || rs[0].Len != format.PageSize*int64(without.main.h.Pages) {
				t.Errorf("without the fence: %v", rs)
			}
		})
	}
}

// within reports whether every range of want lies inside one of have.
func within(have, want []ByteRange) bool {
	for _, w := range want {
		in := false
		for _, h := range have {
			if h.Off <= w.Off && w.Off+w.Len <= h.Off+h.Len {
				in = true
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// TestOpenWithCSV: an index opened with its CSV opened already
// (Options.CSV) reads that source, and closes it with the index (or when
// Open fails); a compressed CSV's index refuses it.
func TestOpenWithCSV(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 63))
	g := makeCSV(r, 3000, 1, ',', true, false)
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	src := &closeCounter{}
	var err error
	if src.Source, err = source.Open(p, 0); err != nil {
		t.Fatal(err)
	}
	ix, err := Open("elsewhere.csv", &Options{IndexPath: p + ".csvidx", CSV: src})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range g.rows[:50] {
		if row.hasKey {
			if got, want := get(t, ix, row.key), g.want(row.key); got != want {
				t.Fatalf("key %q: %q, want %q", row.key, got, want)
			}
		}
	}
	ix.Close()
	if src.closed != 1 {
		t.Errorf("the CSV given was closed %d times", src.closed)
	}
	comp := tooltest.Compress(t, []byte(g.data), "bgzip", `bgzip -c "$IN" > "$OUT"`, "a.csv.gz")
	build(t, comp, &BuildOptions{Key: "1"})
	other := &closeCounter{}
	other.Source, _ = source.Open(p, 0)
	if _, err := Open(comp, &Options{CSV: other}); err == nil || other.closed != 1 {
		t.Errorf("a compressed CSV's index with its CSV given: %v, closed %d times", err, other.closed)
	}
}

// closeCounter is a source that counts its Close calls.
type closeCounter struct {
	source.Source
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return c.Source.Close() }
