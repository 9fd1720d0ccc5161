package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source/remote"
	"github.com/csvidx/csvidx/source/remote/remotetest"
)

// TestGetRemoteCSV: lookups in a CSV served over HTTP, through an index
// built of a local copy (--index), give every key's rows as the local
// file's, in three round trips cold (the CSV's head, its tail for the
// freshness check, the rows), whatever the number of keys of a batch.
func TestGetRemoteCSV(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 45))
	g := makeCSV(r, 20000, 1, ',', true, false)
	plain := writeCSV(t, g.data)
	idx := filepath.Join(t.TempDir(), "remote.csvidx")
	build(t, plain, &BuildOptions{Key: "1", IndexPath: idx})
	s := remotetest.NewServer(t)
	s.Put("data/a.csv", []byte(g.data))
	url := s.URLOf("data/a.csv")

	keys := map[string]bool{"absent key": true}
	for _, row := range g.rows {
		if row.hasKey {
			keys[row.key] = true
		}
	}
	ix, err := Open(url, &Options{IndexPath: idx})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	n := 0
	for key := range keys {
		if got, want := get(t, ix, key), g.want(key); got != want {
			t.Fatalf("key %q: got %q, want %q", key, got, want)
		}
		if n++; n > 200 {
			break
		}
	}

	// Cold: a new open, one key, then a batch of 100.
	before := remote.DefaultClient.Stats.RoundTrips.Load()
	ix2, err := Open(url, &Options{IndexPath: idx})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	var some []string
	for key := range keys {
		some = append(some, key)
	}
	if got, want := get(t, ix2, some[0]), g.want(some[0]); got != want {
		t.Fatalf("key %q: got %q, want %q", some[0], got, want)
	}
	if trips := remote.DefaultClient.Stats.RoundTrips.Load() - before; trips > 3 {
		t.Errorf("a cold lookup took %d round trips, want at most 3", trips)
		for _, h := range s.Seen() {
			t.Log(h.Get("Range"))
		}
	}
	before = remote.DefaultClient.Stats.RoundTrips.Load()
	local, err := Open(plain, &Options{IndexPath: idx})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if got, want := get(t, ix2, some...), get(t, local, some...); got != want {
		t.Fatalf("a batch of %d keys: not the local file's rows", len(some))
	}
	if trips := remote.DefaultClient.Stats.RoundTrips.Load() - before; trips > 2 {
		t.Errorf("a batch of %d keys took %d round trips", len(some), trips)
	}
	os.Remove(idx)
}

// TestBuildRemoteCSV: a build of a CSV served over HTTP, the index written
// locally (--index), is byte for byte the build of a local copy, and
// verify of it, through the server, finds it equal. Past its first GET, of
// the CSV's head, a build reads only the blocks of the read-ahead (4 MiB):
// what it reads past the header before scanning (64 KiB) came with the
// head, not in a round trip of its own.
func TestBuildRemoteCSV(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 46))
	g := makeCSV(r, 30000, 1, ',', true, true)
	plain := writeCSV(t, g.data)
	s := remotetest.NewServer(t)
	s.Put("a.csv", []byte(g.data))
	for _, threads := range []int{1, 2} {
		want, _ := buildBytes(t, plain, "1", false, Resources{Threads: threads})
		got, _ := buildBytes(t, s.URLOf("a.csv"), "1", false, Resources{Threads: threads})
		if !bytes.Equal(got[format.PageSize:], want[format.PageSize:]) {
			t.Fatalf("threads %d: the index of the served CSV differs from the local copy's", threads)
		}
	}
	big := makeCSV(r, 400000, 1, ',', true, false)
	s.Put("big.csv", []byte(big.data))
	seen := len(s.Seen())
	buildBytes(t, s.URLOf("big.csv"), "1", false, Resources{Threads: 2})
	const block = 4 << 20 // remote's read-ahead blocks
	for i, h := range s.Seen()[seen+1:] {
		var first, last int64
		if _, err := fmt.Sscanf(h.Get("Range"), "bytes=%d-%d", &first, &last); err != nil || first%block != 0 || last != min(first+block, int64(len(big.data)))-1 {
			t.Errorf("request %d of the build of %d bytes asked for %s, not a block of the read-ahead", i+2, len(big.data), h.Get("Range"))
		}
	}
	idx := filepath.Join(t.TempDir(), "a.csvidx")
	build(t, s.URLOf("a.csv"), &BuildOptions{Key: "1", IndexPath: idx})
	if res, err := Verify(context.Background(), s.URLOf("a.csv"), &VerifyOptions{IndexPath: idx}); err != nil || !res.Equal {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
}

// TestRemoteCompressed: a compressed CSV served over HTTP (BGZF, zstd in
// frames, plain gzip) is built as the local copy is (the same index, byte
// for byte after the header page), and looked up through that index as
// the plain file is, its frames read by ranges: a lookup of a key reads
// its frames in one round trip.
func TestRemoteCompressed(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 47))
	g := makeCSV(r, 20000, 1, ',', true, false)
	for _, c := range []int{0, 1, 4} { // BGZF, zstd frames, plain gzip
		cp := compressions[c]
		t.Run(cp.name, func(t *testing.T) {
			comp := tooltest.Compress(t, []byte(g.data), cp.tool, cp.cmd, cp.file)
			data, err := os.ReadFile(comp)
			if err != nil {
				t.Fatal(err)
			}
			s := remotetest.NewServer(t)
			s.Put("a"+filepath.Ext(comp), data)
			url := s.URLOf("a" + filepath.Ext(comp))
			want, _ := buildBytes(t, comp, "1", false, Resources{Threads: 2})
			got, _ := buildBytes(t, url, "1", false, Resources{Threads: 2})
			if !bytes.Equal(got[format.PageSize:], want[format.PageSize:]) {
				t.Fatalf("the index of the served file differs from the local copy's")
			}
			idx := filepath.Join(t.TempDir(), "a.csvidx")
			build(t, comp, &BuildOptions{Key: "1", IndexPath: idx})
			ix, err := Open(url, &Options{IndexPath: idx})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			n := 0
			for _, row := range g.rows {
				if !row.hasKey {
					continue
				}
				before := remote.DefaultClient.Stats.RoundTrips.Load()
				if got, want := get(t, ix, row.key), g.want(row.key); got != want {
					t.Fatalf("key %q: %q, want %q", row.key, got, want)
				}
				if trips := remote.DefaultClient.Stats.RoundTrips.Load() - before; trips > 1 {
					t.Errorf("key %q: %d round trips for its frames", row.key, trips)
				}
				if n++; n == 100 {
					break
				}
			}
		})
	}
}
