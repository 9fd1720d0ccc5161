package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestSameIndexAtAnyLimit builds generated CSVs under memory limits from one
// record (every record spills, partitions are split again and again) to
// all in memory: the index files must be byte for byte the same, verify must
// agree at any limit, and no spill file may be left.
func TestSameIndexAtAnyLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 21))
	limits := []int64{16, 32, 48, 4 << 10, 1 << 20, 0, 1 << 40}
	for i := 0; i < 6; i++ {
		g := makeCSV(r, 500+r.IntN(3000), 1, ',', true, i%2 == 1)
		p := writeCSV(t, g.data)
		var want []byte
		for _, limit := range limits {
			t.Run(fmt.Sprintf("csv%d/limit=%d", i, limit), func(t *testing.T) {
				tmp := t.TempDir()
				out := filepath.Join(t.TempDir(), "x.csvidx")
				build(t, p, &BuildOptions{Key: "1", IndexPath: out, Resources: Resources{MemLimit: limit, TmpDir: tmp}})
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Fatalf("the index built with a limit of %d bytes differs from the one built with %d", limit, limits[0])
				}
				res, err := Verify(context.Background(), p, &VerifyOptions{IndexPath: out, Resources: Resources{MemLimit: limit, TmpDir: tmp}})
				if err != nil || !res.Equal {
					t.Fatalf("Verify at limit %d = %+v, %v", limit, res, err)
				}
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Fatalf("%d spill files left in the temporary directory", len(left))
				}
				ix, err := Open(p, &Options{IndexPath: out})
				if err != nil {
					t.Fatal(err)
				}
				defer ix.Close()
				for _, k := range nastyKeys {
					if got, want := get(t, ix, k), g.want(k); got != want {
						t.Fatalf("Get(%q) = %q, want %q", k, got, want)
					}
				}
			})
		}
	}
}

// TestSpillFailures: a build whose spill cannot be written, or that is
// cancelled after spilling, fails, keeps the old index, and leaves no
// temporary file anywhere.
func TestSpillFailures(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 22))
	g := makeCSV(r, 3000, 1, ',', true, false)
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	old, _ := os.ReadFile(DefaultIndexPath(p))

	missing := filepath.Join(t.TempDir(), "gone")
	_, err := Build(context.Background(), p, &BuildOptions{Key: "1", Resources: Resources{MemLimit: 1 << 10, TmpDir: missing}})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(missing)) {
		t.Fatalf("Build spilling into a missing directory = %v, want an error naming it", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	spillDir := t.TempDir()
	_, err = Build(ctx, p, &BuildOptions{Key: "1", Resources: Resources{MemLimit: 1 << 10, TmpDir: spillDir},
		Progress: func(done, total int64) {
			if done == total {
				cancel() // the scan is over and has spilled; the sort and write see the cancel
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Build = %v", err)
	}
	if left, _ := os.ReadDir(spillDir); len(left) != 0 {
		t.Fatalf("%d spill files left after a cancelled build", len(left))
	}
	if now, _ := os.ReadFile(DefaultIndexPath(p)); !bytes.Equal(now, old) {
		t.Fatal("a failed build changed the index")
	}
	checkOnlyFiles(t, p)
}
