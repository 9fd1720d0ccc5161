package sorter

import (
	"slices"
	"testing"
)

// benchInput is one benchmark data set.
type benchInput struct {
	name string
	gen  func() []Record
}

// benchInputs are the data sets of the benchmarks: uniform hashes at three sizes, and heavy
// keys (1000 keys with 20,000 records each among 20M random records). The 100M set needs
// about 5 GiB and takes a minute with slices.SortFunc; -short skips it.
func benchInputs() []benchInput {
	return []benchInput{
		{"uniform/n=1M", func() []Record { return genUniform(newRand(1), 1<<20) }},
		{"uniform/n=10M", func() []Record { return genUniform(newRand(2), 10_000_000) }},
		{"uniform/n=100M", func() []Record { return genUniform(newRand(4), 100_000_000) }},
		{"heavy/n=40M", func() []Record { return genHeavy(newRand(3), 40_000_000, 1000, 20_000) }},
	}
}

// reportRate reports records per second of the timed work.
func reportRate(b *testing.B, n int) {
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkSort measures Sort against slices.SortFunc on the same inputs. Input generation
// and the copy that restores the unsorted input are not timed.
func BenchmarkSort(b *testing.B) {
	for _, in := range benchInputs() {
		if testing.Short() && in.name == "uniform/n=100M" {
			continue
		}
		var input []Record
		load := func() []Record {
			if input == nil {
				input = in.gen()
			}
			return input
		}
		b.Run(in.name+"/radix", func(b *testing.B) {
			src := load()
			recs := make([]Record, len(src))
			scratch := make([]Record, len(src))
			copy(scratch, src) // fault the pages in before timing
			b.SetBytes(int64(len(src)) * 16)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				copy(recs, src)
				b.StartTimer()
				Sort(recs, scratch)
			}
			reportRate(b, len(src))
		})
		b.Run(in.name+"/slices.SortFunc", func(b *testing.B) {
			src := load()
			recs := make([]Record, len(src))
			b.SetBytes(int64(len(src)) * 16)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				copy(recs, src)
				b.StartTimer()
				slices.SortFunc(recs, compareRecords)
			}
			reportRate(b, len(src))
		})
	}
}

// BenchmarkSorter measures the whole Sorter path, allocation included: Add in batches of
// 4096, Finish emitting to a no-op, Close.
func BenchmarkSorter(b *testing.B) {
	for _, in := range benchInputs() {
		if in.name == "uniform/n=100M" {
			continue // the Sorter's memory on top of the input: too much for a routine run
		}
		var src []Record
		b.Run(in.name, func(b *testing.B) {
			if src == nil {
				src = in.gen()
			}
			b.SetBytes(int64(len(src)) * 16)
			for range b.N {
				s := New(Options{})
				for batch := range slices.Chunk(src, 4096) {
					if err := s.Add(batch); err != nil {
						b.Fatal(err)
					}
				}
				if err := s.Finish(func([]Record) error { return nil }); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
			reportRate(b, len(src))
		})
	}
}
