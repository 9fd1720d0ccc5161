package sorter

import (
	"fmt"
	"slices"
	"testing"
)

// sortCase is one input for Sort, built on demand so that only the running cases hold memory.
type sortCase struct {
	name string
	gen  func() []Record
}

// sortCases returns the inputs of TestSort: sizes around every threshold, random sizes, and
// the adversarial shapes of real keys. Most are shuffled, since Sort takes any order.
func sortCases() []sortCase {
	rng := newRand(7)
	var cases []sortCase
	add := func(name string, gen func() []Record) { cases = append(cases, sortCase{name, gen}) }

	add("Empty", func() []Record { return nil })
	add("One", func() []Record { return []Record{{Hash: 5, Offset: 9}} })
	add("TwoOrdered", func() []Record { return []Record{{1, 2}, {3, 4}} })
	add("TwoReversed", func() []Record { return []Record{{3, 4}, {1, 2}} })
	add("TwoEqualHashReversedOffsets", func() []Record { return []Record{{7, 9}, {7, 2}} })
	add("ExtremeHashes", func() []Record {
		return shuffled(rng, withOffsets([]uint64{^uint64(0), 0, 1 << 63, 1, ^uint64(0), 0, 1<<63 - 1}))
	})
	for _, n := range []int{insertionMax - 1, insertionMax, insertionMax + 1, 100, 1000, 4097,
		cacheRecords - 1, cacheRecords, cacheRecords + 1, 200_000} {
		add(fmt.Sprintf("Uniform/n=%d", n), func() []Record { return genUniform(newRand(uint64(n)), n) })
	}
	for i := range 8 {
		n := rng.IntN(1_000_000) + 1
		add(fmt.Sprintf("UniformRandomSize/%d/n=%d", i, n), func() []Record {
			return shuffled(newRand(uint64(i)), genUniform(newRand(uint64(n)), n))
		})
	}
	add("UniformShuffled/n=1M", func() []Record { return shuffled(rng, genUniform(rng, 1<<20)) })
	add("FewDistinctHashes", func() []Record {
		hashes := make([]uint64, 300_000)
		for i := range hashes {
			hashes[i] = uint64(rng.IntN(50)) * 0x9e3779b97f4a7c15
		}
		return shuffled(rng, withOffsets(hashes))
	})
	add("HeavyKeys", func() []Record { return shuffled(rng, genHeavy(rng, 2_500_000, 1000, 2000)) })
	add("HeavyKeysInOffsetOrder", func() []Record { return genHeavy(rng, 2_500_000, 1000, 2000) })
	add("InterleavedGiantKeys/random", func() []Record { return genInterleaved(2_000_000, rng.Uint64(), rng.Uint64()) })
	add("InterleavedGiantKeys/lowBit", func() []Record { return genInterleaved(2_000_000, 0xabcdef0123456788, 0xabcdef0123456789) })
	add("InterleavedGiantKeys/topBit", func() []Record { return genInterleaved(2_000_000, 1<<63|12345, 12345) })
	add("InterleavedGiantKeys/shuffled", func() []Record {
		return shuffled(rng, genInterleaved(1_000_000, 0xfeed, 0xfeee))
	})
	add("AllEqualShuffledOffsets", func() []Record { return shuffled(rng, genBits(rng, 1_000_000, 0x1234, 0)) })
	add("AllEqualAscendingOffsets", func() []Record { return genBits(rng, 1_000_000, 0x1234, 0) })
	add("AllEqualDescendingOffsets", func() []Record {
		recs := genBits(rng, 100_000, 42, 0)
		slices.Reverse(recs)
		return recs
	})
	add("LowBitsOnly/4", func() []Record { return shuffled(rng, genBits(rng, 300_000, rng.Uint64(), 0xf)) })
	add("LowBitsOnly/12", func() []Record { return shuffled(rng, genBits(rng, 300_000, rng.Uint64(), 0xfff)) })
	add("LowBitsOnly/20", func() []Record { return genBits(rng, 300_000, rng.Uint64(), 0xfffff) })
	add("TopBitsOnly/4", func() []Record { return shuffled(rng, genBits(rng, 300_000, rng.Uint64(), 0xf<<60)) })
	add("TopBitsOnly/12", func() []Record { return genBits(rng, 300_000, rng.Uint64(), 0xfff<<52) })
	add("MiddleBitsOnly/16", func() []Record { return shuffled(rng, genBits(rng, 300_000, 0, 0xffff<<24)) })
	add("SparseBits", func() []Record { return shuffled(rng, genBits(rng, 300_000, 0, 1<<63|1<<40|1<<20|1)) })
	add("AlreadySorted", func() []Record { return reference(genUniform(rng, 300_000)) })
	add("ReverseSorted", func() []Record {
		recs := reference(genUniform(rng, 300_000))
		slices.Reverse(recs)
		return recs
	})
	return cases
}

// checkSorted fails the test unless got equals want, naming the first difference.
func checkSorted(t *testing.T, got, want []Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d of %d: got %+v, want %+v", i, len(want), got[i], want[i])
		}
	}
}

// TestSort compares Sort with slices.SortFunc on every case, with a scratch buffer of the
// exact length and one longer than needed.
func TestSort(t *testing.T) {
	for _, c := range sortCases() {
		t.Run(c.name, func(t *testing.T) {
			input := c.gen()
			want := reference(input)
			for _, extra := range []int{0, 3} {
				got := slices.Clone(input)
				scratch := make([]Record, len(got)+extra)
				Sort(got, scratch)
				checkSorted(t, got, want)
			}
		})
	}
}

// TestSortShortScratch checks that a scratch buffer shorter than the input is refused.
func TestSortShortScratch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Sort with a short scratch buffer did not panic")
		}
	}()
	Sort(make([]Record, 10), make([]Record, 9))
}

// TestInsertionSortInto checks the leaf sort both in place and into another buffer.
func TestInsertionSortInto(t *testing.T) {
	rng := newRand(11)
	for n := range 40 {
		hashes := make([]uint64, n)
		for i := range hashes {
			hashes[i] = uint64(rng.IntN(5))
		}
		input := shuffled(rng, withOffsets(hashes))
		want := reference(input)

		inPlace := slices.Clone(input)
		insertionSortInto(inPlace, inPlace)
		checkSorted(t, inPlace, want)

		dst := make([]Record, n)
		src := slices.Clone(input)
		insertionSortInto(dst, src)
		checkSorted(t, dst, want)
	}
}

// TestDigitWidth checks the digit plan: never wider than the histogram, never narrower than
// minDigitBits, and memory passes no wider than memDigitBits.
func TestDigitWidth(t *testing.T) {
	for _, n := range []int{insertionMax + 1, 1000, cacheRecords, cacheRecords + 1, 1 << 20, 100_000_000, 1 << 40} {
		w := digitWidth(n)
		if w < minDigitBits || w > maxDigitBits || (n > cacheRecords && w > memDigitBits) {
			t.Errorf("digitWidth(%d) = %d", n, w)
		}
	}
}

// FuzzSort sorts records decoded from the fuzzer's bytes with Sort and with a Sorter, and
// compares both with slices.SortFunc. Hashes come from a few bytes spread over the top and
// bottom bits, so duplicates, shared prefixes and shared suffixes are common; the first byte
// repeats the records to reach the radix paths and heavy keys.
func FuzzSort(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{7, 255, 0, 1, 255, 0, 2, 0, 0, 3})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, again and again and again"))
	seed := make([]byte, 600)
	for i := range seed {
		seed[i] = byte(i * 37)
	}
	f.Add(seed)
	allEqual := make([]byte, 301)
	allEqual[0] = 200
	f.Add(allEqual)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs := decodeFuzz(data)
		want := reference(recs)

		got := slices.Clone(recs)
		Sort(got, make([]Record, len(got)))
		checkSorted(t, got, want)

		// The Sorter takes records in Offset order, as the build makes them; a small
		// memory limit taken from the data forces spills and sub-sorts.
		for i := range recs {
			recs[i].Offset = uint64(i)
		}
		limit := int64(0)
		if len(data) > 0 && data[0]&0x80 != 0 {
			limit = recordBytes * int64(1+data[0]%8)
		}
		s := New(Options{MemLimit: limit, TmpDir: t.TempDir()})
		defer s.Close()
		for rest := recs; len(rest) > 0; {
			k := min(len(rest), 1+int(rest[0].Hash%97))
			if err := s.Add(rest[:k]); err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
		}
		checkSorted(t, finishAll(t, s), reference(recs))
	})
}

// decodeFuzz turns fuzzer bytes into records: three bytes each (two for the hash, one for
// the offset), repeated 1+data[0]%64 times with offsets moved past the previous copy.
func decodeFuzz(data []byte) []Record {
	if len(data) == 0 {
		return nil
	}
	copies := 1 + int(data[0])%64
	data = data[1:]
	var base []Record
	for ; len(data) >= 3; data = data[3:] {
		a, b := uint64(data[0]), uint64(data[1])
		h := a<<56 | (a&0xf)<<(b%48) | b
		base = append(base, Record{Hash: h, Offset: uint64(data[2])})
	}
	var recs []Record
	for c := range copies {
		for _, r := range base {
			recs = append(recs, Record{Hash: r.Hash, Offset: r.Offset + uint64(c)<<8})
		}
	}
	return recs
}
