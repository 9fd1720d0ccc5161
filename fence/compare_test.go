package fence

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCompare: a Comparison finds a fence file equal to the fence of the
// same entries, and otherwise the first byte that differs, in an entry or
// in the header; a file of another size is told by its size alone, and the
// file's own generation is read from its header when it is intact.
func TestCompare(t *testing.T) {
	entries := make([]uint64, 1500) // three pages of entries
	for i := range entries {
		entries[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := Write(p, 7, entries, 0o644); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(offs ...int) []byte {
		b := bytes.Clone(good)
		for _, off := range offs {
			b[off] ^= 1
		}
		return b
	}
	for _, c := range []struct {
		name   string
		file   []byte
		fresh  uint64 // the fresh fence's generation
		adds   int    // entries the fresh fence has
		intact bool
		size   int64
		at     int64
	}{
		{"Equal", good, 7, len(entries), true, int64(len(good)), -1},
		{"EntryByte", flip(headerSize + 8*1234 + 5), 7, len(entries), true, int64(len(good)), headerSize + 8*1234 + 5},
		{"FirstOfTwo", flip(headerSize+8*1000, headerSize+8*2+7), 7, len(entries), true, int64(len(good)), headerSize + 8*2 + 7},
		{"Generation", good, 8, len(entries), true, int64(len(good)), 16}, // the fresh header names another index
		{"HeaderChecksum", flip(100), 7, len(entries), false, int64(len(good)), 100},
		{"Shorter", good[:len(good)-8], 7, len(entries), true, int64(len(good) - 8), -1},
		{"FreshHasMore", good, 7, len(entries) + 1, true, int64(len(good)), -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp := Compare(bytes.NewReader(c.file), int64(len(c.file)))
			for _, e := range entries {
				cmp.Add(e)
			}
			for range c.adds - len(entries) {
				cmp.Add(^uint64(0))
			}
			d, err := cmp.Result(c.fresh)
			if err != nil {
				t.Fatal(err)
			}
			want := Difference{Intact: c.intact, Size: c.size, WantSize: headerSize + 8*int64(c.adds), At: c.at}
			if c.intact {
				want.Generation = 7
			}
			if *d != want {
				t.Errorf("Result = %+v, want %+v", *d, want)
			}
		})
	}
}
