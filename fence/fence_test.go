package fence

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
)

// TestFind holds Find to its definition, the last entry below h, on sorted
// entries that are uniform, clustered, repeated or piled at the ends (the
// last three make many summary entries equal).
func TestFind(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	gens := map[string]func() uint64{
		"uniform":   r.Uint64,
		"clustered": func() uint64 { return r.Uint64() >> 44 << 44 },
		"repeated":  func() uint64 { return r.Uint64() % 5 * (math.MaxUint64 / 5) },
		"low":       func() uint64 { return r.Uint64() % 3000 },
	}
	for name, gen := range gens {
		// Past 512,000 entries a summary entry samples every other page.
		for _, n := range []int{1, 2, 511, 512, 513, 3000, 40000, 600_000} {
			entries := make([]uint64, n)
			for i := range entries {
				entries[i] = gen()
			}
			slices.Sort(entries)
			p := filepath.Join(t.TempDir(), "f")
			if err := Write(p, 7, entries, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(p, 7, uint64(n))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Verify(); err != nil {
				t.Fatal(err)
			}
			want := func(h uint64) uint64 {
				i := sort.Search(n, func(i int) bool { return entries[i] >= h })
				return uint64(max(i-1, 0))
			}
			probes := []uint64{0, 1, math.MaxUint64}
			for i := 0; i < 3000; i++ {
				e := entries[r.IntN(n)]
				probes = append(probes, e, e+1, e-1, r.Uint64())
			}
			for _, h := range probes {
				if got := f.Find(h); got != want(h) {
					t.Fatalf("%s, %d entries: Find(%#x) = %d, want %d", name, n, h, got, want(h))
				}
			}
			f.Close()
		}
	}
}

// TestOpenRefuses: a fence for another index, of the wrong size, or with a
// broken header is unusable; a broken entry is caught by Verify.
func TestOpenRefuses(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	entries := []uint64{1, 5, 9, 12}
	if err := Write(p, 3, entries, 0o644); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(p)
	check := func(what string, gen, pages uint64) {
		t.Helper()
		if f, err := Open(p, gen, pages); !errors.Is(err, ErrUnusable) {
			f.Close()
			t.Errorf("%s: Open = %v, want ErrUnusable", what, err)
		}
	}
	check("another index's generation", 4, 4)
	check("another page count", 3, 5)
	os.Remove(p)
	check("missing", 3, 4)
	for _, off := range []int{0, 8, 12, 16, 24, 32, 100, 4092} {
		bad := slices.Clone(good)
		bad[off] ^= 1
		os.WriteFile(p, bad, 0o644)
		check("a flipped header byte", 3, 4)
	}
	os.WriteFile(p, good[:len(good)-1], 0o644)
	check("truncated", 3, 4)
	bad := slices.Clone(good)
	bad[headerSize+9] ^= 1
	os.WriteFile(p, bad, 0o644)
	f, err := Open(p, 3, 4)
	if err != nil {
		t.Fatalf("a flipped entry byte is not seen at open: %v", err)
	}
	if f.Verify() == nil {
		t.Error("Verify missed a flipped entry byte")
	}
	f.Close()

	// A summary that does not sample the entries, under a valid checksum
	// (only a writer's bug could make one): Verify reports it.
	bad = slices.Clone(good)
	binary.LittleEndian.PutUint32(bad[summaryAt:], 7)
	crcpage.Seal(bad)
	os.WriteFile(p, bad, 0o644)
	if f, err = Open(p, 3, 4); err != nil {
		t.Fatalf("a fence with a wrong summary and a valid checksum: %v", err)
	}
	if f.Verify() == nil {
		t.Error("Verify missed a summary that does not sample the entries")
	}
	f.Close()
}

// TestSampling: the summary fits in the header, samples whole pages of
// entries, and covers them all.
func TestSampling(t *testing.T) {
	for _, n := range []uint64{0, 1, 512, 513, 511_999, 512_000, 512_001, 1 << 30} {
		g, s := sampling(n)
		if g%perPage != 0 || s > maxSummary || summaryAt+4*s > crcOffset || s*g < n || (s > 0 && (s-1)*g >= n) {
			t.Errorf("sampling(%d) = every %d entries, %d samples", n, g, s)
		}
	}
}

// encode returns the bytes of the fence of entries, from a Stream alone.
func encode(gen uint64, entries []uint64) []byte {
	var s Stream
	b := make([]byte, headerSize, headerSize+entrySize*len(entries))
	for _, h := range entries {
		b = append(b, s.Add(h)...)
	}
	copy(b, s.Header(gen))
	return b
}

// TestWriteEqualsStream: the file the Writer makes (entries streamed, the
// header written last in its place) is the header and entries its Stream
// computes, at sizes either side of a page of entries and of the summary's
// widening.
func TestWriteEqualsStream(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{0, 1, 511, 512, 513, 600_000} {
		entries := make([]uint64, n)
		for i := range entries {
			entries[i] = r.Uint64()
		}
		slices.Sort(entries)
		p := filepath.Join(t.TempDir(), "f")
		if err := Write(p, 9, entries, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := encode(9, entries); !slices.Equal(got, want) {
			t.Fatalf("%d entries: the written file (%d bytes) differs from the stream's bytes (%d)", n, len(got), len(want))
		}
	}
}
