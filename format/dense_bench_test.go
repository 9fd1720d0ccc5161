package format

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// BenchmarkDensePack packs 1M records shaped like the benchmark CSV's (about
// 8 rows per key, a fifth on heavy keys) into format 2 pages.
func BenchmarkDensePack(b *testing.B) {
	recs := benchRecords()
	b.SetBytes(benchN)
	for b.Loop() {
		p := NewDensePacker(&countSink{}, nil, FingerprintBits(benchN), benchN, benchSize)
		if err := p.AddBatch(recs); err != nil {
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
	recs := benchRecords()
	sink := &pagesSink{}
	p := NewDensePacker(sink, nil, FingerprintBits(benchN), benchN, benchSize)
	if err := p.AddBatch(recs); err != nil {
		b.Fatal(err)
	}
	if err := p.flush(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchN)
	for b.Loop() {
		got := 0
		for i, pg := range sink.pages {
			d, err := OpenDensePage(pg, uint64(i), p.fpBits, p.width)
			if err != nil {
				b.Fatal(err)
			}
			if err := d.Each(func(_ uint64, offs []uint64) error { got += len(offs); return nil }); err != nil {
				b.Fatal(err)
			}
		}
		if got != benchN {
			b.Fatalf("%d records back of %d", got, benchN)
		}
	}
}

const benchN, benchSize = 1 << 20, 50 << 20 // the benchmarks' records and CSV size

// benchRecords returns benchN records shaped like the benchmark CSV's
// (about 8 rows per key, a fifth on 10 heavy keys), masked to 32-bit
// fingerprints and sorted.
func benchRecords() []sorter.Record {
	r := rand.New(rand.NewPCG(1, 1))
	recs := make([]sorter.Record, benchN)
	for i := range recs {
		k := r.Uint64N(benchN / 8)
		if r.IntN(5) == 0 {
			k = r.Uint64N(10)
		}
		recs[i] = sorter.Record{Hash: (k * 0x9e3779b97f4a7c15) &^ (1<<32 - 1), Offset: uint64(i) * (benchSize / benchN)}
	}
	slices.SortFunc(recs, func(a, b sorter.Record) int {
		return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.Offset, b.Offset))
	})
	return recs
}
