package run

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestSHA256 compares SHA256, which reads with direct I/O in aligned blocks,
// with crypto/sha256 over the same bytes, at sizes around the block size
// and the read size.
func TestSHA256(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 4095, 4096, 4097, 4 << 20, 4<<20 + 4096, 9<<20 + 3} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := SHA256(p)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		sum := sha256.Sum256(data)
		if want := hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("size %d: SHA256 = %s, want %s", size, got, want)
		}
		// The fallback for file systems that refuse direct reads.
		if buffered, err := hashFile(p, os.Open); err != nil || buffered != got {
			t.Fatalf("size %d: read through the cache: %s, %v; direct: %s", size, buffered, err, got)
		}
	}
}
