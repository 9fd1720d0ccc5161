package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// BenchmarkDensePack packs 1M records shaped like the benchmark CSV's (about
// 8 rows per key, a fifth on heavy keys) into format 2 pages.
func BenchmarkDensePack(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, size = 1 << 20, 50 << 20
	recs := make([]sorter.Record, n)
	for i := range recs {
		k := r.Uint64N(n / 8)
		if r.IntN(5) == 0 {
			k = r.Uint64N(10)
		}
		recs[i] = sorter.Record{Hash: (k * 0x9e3779b97f4a7c15) &^ (1<<32 - 1), Offset: uint64(i) * (size / n)}
	}
	slices.SortFunc(recs, func(a, b sorter.Record) int {
		if a.Hash != b.Hash {
			if a.Hash < b.Hash {
				return -1
			}
			return 1
		}
		return int(a.Offset) - int(b.Offset)
	})
	b.SetBytes(n)
	for b.Loop() {
		p := newDensePacker(&countSink{}, nil, n, size)
		if err := p.addBatch(recs); err != nil {
			b.Fatal(err)
		}
		if err := p.flush(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDenseDecode reads back every page BenchmarkDensePack's records
// make, whole, as compact does.
func BenchmarkDenseDecode(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, size = 1 << 20, 50 << 20
	recs := make([]sorter.Record, n)
	for i := range recs {
		k := r.Uint64N(n / 8)
		if r.IntN(5) == 0 {
			k = r.Uint64N(10)
		}
		recs[i] = sorter.Record{Hash: (k * 0x9e3779b97f4a7c15) &^ (1<<32 - 1), Offset: uint64(i) * (size / n)}
	}
	slices.SortFunc(recs, func(a, b sorter.Record) int {
		if a.Hash != b.Hash {
			if a.Hash < b.Hash {
				return -1
			}
			return 1
		}
		return int(a.Offset) - int(b.Offset)
	})
	sink := &pagesSink{}
	p := newDensePacker(sink, nil, n, size)
	if err := p.addBatch(recs); err != nil {
		b.Fatal(err)
	}
	if err := p.flush(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	for b.Loop() {
		got := 0
		for i, pg := range sink.pages {
			d, err := openDensePage(pg, uint64(i), p.fpBits, p.width)
			if err != nil {
				b.Fatal(err)
			}
			if err := d.each(func(_ uint64, offs []uint64) error { got += len(offs); return nil }); err != nil {
				b.Fatal(err)
			}
		}
		if got != n {
			b.Fatalf("%d records back of %d", got, n)
		}
	}
}
