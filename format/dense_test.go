package format

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
)

// pagesSink keeps the pages written to it.
type pagesSink struct{ pages [][]byte }

func (s *pagesSink) WritePage(n uint64, page []byte) error {
	if n != uint64(len(s.pages))+1 {
		return fmt.Errorf("page %d after %d", n, len(s.pages))
	}
	s.pages = append(s.pages, slices.Clone(page))
	return nil
}

type denseRec struct{ fp, off uint64 }

// denseRecords returns n records of a CSV of size bytes, sorted by
// (fingerprint, offset), over keys of which some are heavy.
func denseRecords(r *rand.Rand, n int, size uint64, fpBits int, keys int) []denseRec {
	return keyRecords(r, n, size, keys, func(k int) uint64 { return uint64(k*2654435761) % (1 << uint(fpBits)) })
}

// keyRecords returns n records at distinct offsets below size, sorted by
// (fingerprint, offset), of keys 0 to keys-1 whose fingerprints fp gives,
// a fifth of them on the three heavy keys 0, 1 and 2.
func keyRecords(r *rand.Rand, n int, size uint64, keys int, fp func(k int) uint64) []denseRec {
	recs := make([]denseRec, 0, n)
	seen := map[uint64]bool{}
	for len(recs) < n {
		off := r.Uint64N(size)
		if seen[off] {
			continue
		}
		seen[off] = true
		k := r.IntN(keys)
		if r.IntN(5) == 0 {
			k = r.IntN(3) // heavy keys
		}
		recs = append(recs, denseRec{fp(k), off})
	}
	slices.SortFunc(recs, func(a, b denseRec) int { return cmp.Or(cmp.Compare(a.fp, b.fp), cmp.Compare(a.off, b.off)) })
	return recs
}

// packDense packs recs and returns the pages and the packer.
func packDense(t *testing.T, recs []denseRec, size uint64) (*pagesSink, *DensePacker) {
	t.Helper()
	sink := &pagesSink{}
	var fence []uint64
	p := NewDensePacker(sink, func(f uint64) error { fence = append(fence, f); return nil }, FingerprintBits(uint64(len(recs))), uint64(len(recs)), size)
	for _, rc := range recs {
		if err := p.add(rc.fp<<p.Shift, rc.off); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.flush(); err != nil {
		t.Fatal(err)
	}
	if len(fence) != len(sink.pages) {
		t.Fatalf("%d fence entries for %d pages", len(fence), len(sink.pages))
	}
	for i, pg := range sink.pages {
		if !crcpage.Intact(pg) || fence[i] != uint64FromPage(pg) {
			t.Fatalf("page %d: CRC or fence entry wrong", i)
		}
	}
	return sink, p
}

func uint64FromPage(pg []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(pg[i])
	}
	return v
}

// TestDenseRoundTrip packs random records, light and heavy, of CSVs of
// many sizes, and reads every page back whole and by lookup.
func TestDenseRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for round := range 40 {
		size := uint64(1) << uint(12+r.IntN(30))
		n := 1 + r.IntN(20000)
		if size < uint64(n)*2 {
			size = uint64(n) * 2
		}
		keys := 1 + r.IntN(n)
		f := FingerprintBits(uint64(n))
		recs := denseRecords(r, n, size, f, keys)
		sink, p := packDense(t, recs, size)
		var got []denseRec
		byFP := map[uint64][]uint64{}
		for i, pg := range sink.pages {
			d, err := OpenDensePage(pg, uint64(i), p.fpBits, p.width)
			if err != nil {
				t.Fatalf("round %d, page %d: %v", round, i, err)
			}
			err = d.Each(func(fp uint64, offs []uint64) error {
				for _, o := range offs {
					got = append(got, denseRec{fp, o})
				}
				return nil
			})
			if err != nil {
				t.Fatalf("round %d, page %d: %v", round, i, err)
			}
			for _, rc := range recs {
				if _, ok := byFP[rc.fp]; ok {
					continue
				}
				byFP[rc.fp] = nil
			}
		}
		if !slices.Equal(got, recs) {
			t.Fatalf("round %d: %d records back of %d, or not the same", round, len(got), len(recs))
		}
		// Each fingerprint's offsets, gathered by lookups over every page,
		// and an absent one's: none.
		want := map[uint64][]uint64{}
		for _, rc := range recs {
			want[rc.fp] = append(want[rc.fp], rc.off)
		}
		probes := 0
		for fp, offs := range want {
			if probes++; probes > 300 {
				break
			}
			var all []uint64
			for i, pg := range sink.pages {
				d, _ := OpenDensePage(pg, uint64(i), p.fpBits, p.width)
				var err error
				if all, _, err = d.Lookup(fp, all); err != nil {
					t.Fatalf("round %d: lookup %#x on page %d: %v", round, fp, i, err)
				}
			}
			if !slices.Equal(all, offs) {
				t.Fatalf("round %d: lookup %#x: %d offsets, want %d", round, fp, len(all), len(offs))
			}
			if absent := fp + 1; want[absent] == nil && absent < 1<<uint(p.fpBits) {
				for i, pg := range sink.pages {
					d, _ := OpenDensePage(pg, uint64(i), p.fpBits, p.width)
					if got, _, err := d.Lookup(absent, nil); err != nil || len(got) != 0 {
						t.Fatalf("round %d: absent %#x found %v, %v", round, absent, got, err)
					}
				}
			}
		}
		t.Logf("round %d: %d records, %d keys, W %d, F %d: %d pages, %.2f bytes per record", round, n, keys, p.width, p.fpBits,
			len(sink.pages), float64(len(sink.pages)*PageSize)/float64(n))
	}
}
