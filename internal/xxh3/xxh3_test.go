package xxh3

import (
	"math/rand/v2"
	"testing"

	zeebo "github.com/zeebo/xxh3"
)

// TestHashMatchesZeebo holds Hash to github.com/zeebo/xxh3, an independent
// implementation of the reference, on every length from 0 to 4,200 bytes
// (each branch and each stripe and block boundary), many times each, on
// random bytes and on runs of one byte, and on random lengths up to
// 70,000 bytes: 1.27 million inputs.
func TestHashMatchesZeebo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 70_000)
	fill := func(b []byte) {
		if r.IntN(8) == 0 { // low-entropy input: one byte repeated
			c := byte(r.Uint32())
			for i := range b {
				b[i] = c
			}
			return
		}
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
	inputs := 0
	check := func(b []byte) {
		inputs++
		if got, want := Hash(b), zeebo.Hash(b); got != want {
			t.Fatalf("Hash of %d bytes %x... = %#x, zeebo/xxh3 says %#x", len(b), b[:min(len(b), 32)], got, want)
		}
	}
	for n := 0; n <= 4200; n++ {
		rounds := 60
		if n <= 256 {
			rounds = 4000
		}
		for range rounds {
			b := buf[:n]
			fill(b)
			check(b)
		}
	}
	for range 2000 {
		b := buf[:r.IntN(len(buf))]
		fill(b)
		check(b)
	}
	t.Logf("%d inputs, every hash equal", inputs)
}

// TestHasherMatchesHash writes inputs to a Hasher in random pieces (empty
// ones too), summing now and then in between, and holds every sum to Hash
// of what was written so far.
func TestHasherMatchesHash(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 20_000)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	h := New()
	sums := 0
	for round := range 3000 {
		h.Reset()
		n := r.IntN(len(buf))
		if round%3 == 0 {
			n = r.IntN(1200)
		}
		for at := 0; at < n; {
			var k int
			switch r.IntN(4) {
			case 0:
				k = r.IntN(8)
			case 1:
				k = r.IntN(300)
			default:
				k = r.IntN(3000)
			}
			k = min(k, n-at)
			if w, err := h.Write(buf[at : at+k]); w != k || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", k, w, err)
			}
			at += k
			if r.IntN(4) == 0 || at == n {
				sums++
				if got, want := h.Sum64(), zeebo.Hash(buf[:at]); got != want {
					t.Fatalf("round %d: Sum64 after %d bytes = %#x, want %#x", round, at, got, want)
				}
			}
		}
	}
	t.Logf("%d sums, every one equal", sums)
}

// FuzzHash compares Hash and a Hasher fed in two pieces with zeebo/xxh3 on
// the fuzzer's inputs.
func FuzzHash(f *testing.F) {
	for _, n := range []int{0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 256, 257, 1024, 1025, 2048} {
		f.Add(make([]byte, n), uint16(n/2))
	}
	f.Fuzz(func(t *testing.T, b []byte, cut uint16) {
		want := zeebo.Hash(b)
		if got := Hash(b); got != want {
			t.Fatalf("Hash = %#x, want %#x", got, want)
		}
		k := int(cut) % (len(b) + 1)
		h := New()
		h.Write(b[:k])
		h.Write(b[k:])
		if got := h.Sum64(); got != want {
			t.Fatalf("Hasher (cut at %d) = %#x, want %#x", k, got, want)
		}
	})
}

func BenchmarkHash(b *testing.B) {
	for _, n := range []int{5, 12, 36, 64, 150, 200, 65536} {
		data := make([]byte, n)
		b.Run("ours/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Hash(data)
			}
		})
		b.Run("zeebo/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				zeebo.Hash(data)
			}
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
