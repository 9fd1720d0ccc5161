package sorter

import (
	"math/rand/v2"
	"slices"
)

// Test inputs. Every generator is deterministic for a seed and returns records in ascending
// Offset order (offset i*7, like rows of a CSV), which is how the build feeds a Sorter;
// shuffle them for Sort's arbitrary-order cases.

// newRand returns a deterministic generator for a test or benchmark.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

// withOffsets returns records with the given hashes and ascending offsets.
func withOffsets(hashes []uint64) []Record {
	recs := make([]Record, len(hashes))
	for i, h := range hashes {
		recs[i] = Record{Hash: h, Offset: uint64(i) * 7}
	}
	return recs
}

// genUniform returns n records with uniform random hashes.
func genUniform(rng *rand.Rand, n int) []Record {
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = rng.Uint64()
	}
	return withOffsets(hashes)
}

// genHeavy returns keys*perKey records of heavy keys (each key perKey times) mixed at random
// positions among random other records, n records in all.
func genHeavy(rng *rand.Rand, n, keys, perKey int) []Record {
	heavy := make([]uint64, keys)
	for i := range heavy {
		heavy[i] = rng.Uint64()
	}
	hashes := make([]uint64, 0, n)
	for _, h := range heavy {
		for range perKey {
			hashes = append(hashes, h)
		}
	}
	for len(hashes) < n {
		hashes = append(hashes, rng.Uint64())
	}
	rng.Shuffle(len(hashes), func(i, j int) { hashes[i], hashes[j] = hashes[j], hashes[i] })
	return withOffsets(hashes[:n])
}

// genInterleaved returns n records alternating between two hashes.
func genInterleaved(n int, h1, h2 uint64) []Record {
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = h1
		if i%2 == 1 {
			hashes[i] = h2
		}
	}
	return withOffsets(hashes)
}

// genBits returns n records whose hashes are base with random values in the bits of mask.
func genBits(rng *rand.Rand, n int, base, mask uint64) []Record {
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = base&^mask | rng.Uint64()&mask
	}
	return withOffsets(hashes)
}

// shuffled returns a shuffled copy of recs.
func shuffled(rng *rand.Rand, recs []Record) []Record {
	out := slices.Clone(recs)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// reference returns a sorted copy of recs, sorted by slices.SortFunc: the oracle.
func reference(recs []Record) []Record {
	out := slices.Clone(recs)
	slices.SortFunc(out, compareRecords)
	return out
}
