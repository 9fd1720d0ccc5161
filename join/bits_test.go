package join

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// TestJoinBitsFile: past the memory limit, the bitmap lives in a
// temporary file that has no name (nothing is left in its directory), and
// a directory it cannot be made in is an error before any row is written.
func TestJoinBitsFile(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	dir := t.TempDir()
	j, err := New(strings.NewReader("k\n2\n"), rp, &Options{Mode: Full, Key: "k", Resources: index.Resources{MemLimit: 1, TmpDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := j.Run(context.Background(), &out); err != nil || out.String() != "k,k,v\n2,2,b\n,1,a\n" {
		t.Fatalf("%q, %v", out.String(), err)
	}
	j.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d files left in the bitmap's directory", len(entries))
	}
	missing := filepath.Join(dir, "nope")
	j, err = New(strings.NewReader("k\n2\n"), rp, &Options{Mode: Right, Key: "k", Resources: index.Resources{MemLimit: 1, TmpDir: missing}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	out.Reset()
	if _, err := j.Run(context.Background(), &out); err == nil || !strings.Contains(err.Error(), missing) || out.Len() > 0 {
		t.Fatalf("a bitmap in a missing directory: %q, %v; want an error naming it, and no output", out.String(), err)
	}
}

// TestRowBits: rows that start gap bytes apart or more (gap: the key's
// last column + 1, 2 at least) have bits of their own, set by one and read
// by the other, in memory and in a file past the memory limit; the range's
// last offset has a bit too (no row starts past it).
func TestRowBits(t *testing.T) {
	for _, lastCol := range []int{0, 1, 4} {
		for _, memLimit := range []int64{1 << 20, 1} {
			const start, end = 7, 7 + 10000
			b, err := newRowBits(start, end, lastCol, memLimit, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if gap := max(2, lastCol+1); b.gap != gap {
				t.Fatalf("last column %d: gap %d, want %d", lastCol, b.gap, gap)
			}
			if inFile := b.m != nil; inFile != (memLimit == 1) {
				t.Fatalf("memory limit %d: in a file %v", memLimit, inFile)
			}
			// Every third of rows a gap apart.
			set := map[int]bool{}
			for off := start; off < end; off += 3 * b.gap {
				set[off] = true
			}
			err = b.guard(func() error {
				for off := range set {
					b.set(off)
				}
				for off := start; off < end; off += b.gap {
					if b.get(off) != set[off] {
						t.Errorf("last column %d, limit %d: bit of %d is %v", lastCol, memLimit, off, b.get(off))
					}
				}
				b.set(end - 1)
				if !b.get(end - 1) {
					t.Errorf("last column %d, limit %d: the last offset's bit is not set", lastCol, memLimit)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := b.close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// An empty range still has a word: a RIGHT of a header alone.
	b, err := newRowBits(10, 10, 0, 1<<20, t.TempDir())
	if err != nil || len(b.bits) != 1 {
		t.Fatalf("an empty range: %v", err)
	}
}
