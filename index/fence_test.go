package index

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/format"
	"github.com/zeebo/xxh3"
)

// fenceCSV builds an index of many pages whose hashes (from hash) are
// uniform, or repeat in runs that span pages, and returns the CSV's path
// and its keys.
func fenceCSV(t *testing.T, hash func([]byte) uint64) (string, []string) {
	var b strings.Builder
	b.WriteString("id,key\n")
	r := rand.New(rand.NewPCG(61, 61))
	var keys []string
	for i := 0; i < 3000; i++ {
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	for i := 0; i < 30000; i++ {
		k := keys[r.IntN(len(keys))]
		if i%7 == 0 {
			k = keys[0] // one heavy key: a run of equal hashes over many pages
		}
		fmt.Fprintf(&b, "%d,%s\n", i, k)
	}
	p := writeCSV(t, b.String())
	useHash(t, hash)
	build(t, p, &BuildOptions{Key: "key"})
	return p, keys
}

// TestFenceSameAnswers: lookups through the fence give what lookups without
// it give, for every key, for hashes at page boundaries, and for runs of
// equal hashes that span pages.
func TestFenceSameAnswers(t *testing.T) {
	t.Run("Format2", testFenceSameAnswers)
	t.Run("Format1", func(t *testing.T) { useFlat(t); testFenceSameAnswers(t) })
}

// fenceHashes are the key hashes the fence tests index fenceCSV by:
// uniform ones, and ones that repeat in runs over many pages.
var fenceHashes = map[string]func([]byte) uint64{
	"uniform":  xxh3.Hash,
	"repeated": func(k []byte) uint64 { return xxh3.Hash(k) % 9 * (math.MaxUint64 / 9) },
}

func testFenceSameAnswers(t *testing.T) {
	for name, hash := range fenceHashes {
		t.Run(name, func(t *testing.T) {
			p, keys := fenceCSV(t, hash)
			with, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer with.Close()
			without, err := Open(p, &Options{NoFence: true})
			if err != nil {
				t.Fatal(err)
			}
			defer without.Close()
			if with.main.fence == nil || without.main.fence != nil {
				t.Fatal("the fence was not opened, or opened when told not to")
			}
			for _, k := range append(keys, "missing", "") {
				if got, want := get(t, with, k), get(t, without, k); got != want {
					t.Fatalf("%s: with the fence %d bytes, without %d", k, len(got), len(want))
				}
			}
			m := with.main
			step := uint64(1) // between neighbouring search keys
			if m.h.Dense() {
				step <<= 64 - m.h.FPBits
			}
			for pg := uint64(0); pg < m.h.Pages; pg++ { // every page's first key, and its neighbours
				h := m.r.FirstKeyAt(pg)
				if !m.h.Dense() {
					h = m.r.HashAt(pg * format.RecordsPerPage)
				}
				for _, x := range []uint64{h - step, h, h + step} {
					if a, b := candidatesOf(t, with.main, x), candidatesOf(t, without.main, x); !slices.Equal(a, b) {
						t.Fatalf("hash %#x: %d candidates through the fence, %d without", x, len(a), len(b))
					}
				}
			}
		})
	}
}

// candidatesOf returns the offsets p has for hash h.
func candidatesOf(t *testing.T, p *part, h uint64) []uint64 {
	t.Helper()
	var all []uint64
	if err := p.offsets(h, p.locate(h), func(offs []uint64) error { all = append(all, offs...); return nil }); err != nil {
		t.Fatal(err)
	}
	return all
}

// TestBadFences: a missing, truncated, foreign or corrupted fence never
// changes an answer; verify reports a corrupted one.
func TestBadFences(t *testing.T) {
	p, keys := fenceCSV(t, xxh3.Hash)
	fp := fencePath(DefaultIndexPath(p))
	good, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	ix, _ := Open(p, &Options{NoFence: true})
	for _, k := range keys[:300] {
		want[k] = get(t, ix, k)
	}
	ix.Close()
	other := writeCSV(t, "id,key\n1,x\n")
	build(t, other, &BuildOptions{Key: "key"})
	foreign, _ := os.ReadFile(fencePath(DefaultIndexPath(other)))

	r := rand.New(rand.NewPCG(62, 62))
	cases := map[string][]byte{"missing": nil, "truncated": good[:len(good)/2], "foreign": foreign}
	for i := 0; i < 20; i++ { // entries scrambled: a lying fence
		bad := bytes.Clone(good)
		for j := 0; j < 50; j++ {
			bad[4096+r.IntN(len(bad)-4096)] = byte(r.Uint32())
		}
		cases[fmt.Sprintf("scrambled%d", i)] = bad
	}
	for name, data := range cases {
		if data == nil {
			os.Remove(fp)
		} else {
			os.WriteFile(fp, data, 0o644)
		}
		ix, err := Open(p, nil)
		if err != nil {
			t.Fatalf("%s fence: Open: %v", name, err)
		}
		for _, k := range keys[:300] {
			if got := get(t, ix, k); got != want[k] {
				t.Fatalf("%s fence: Get(%s) differs", name, k)
			}
		}
		ix.Close()
		res, err := Verify(context.Background(), p, nil)
		switch {
		case err != nil:
			t.Fatalf("%s fence: Verify: %v", name, err)
		case name == "missing" || name == "foreign":
			if !res.Equal || len(res.Notes) != 1 {
				t.Fatalf("%s fence: Verify = %+v; want equal, with a note", name, res)
			}
		case res.Equal:
			t.Fatalf("%s fence: Verify = %+v; want a difference", name, res)
		}
	}
	os.WriteFile(fp, good, 0o644)
	if res, err := Verify(context.Background(), p, nil); err != nil || !res.Equal {
		t.Fatalf("Verify with the good fence = %+v, %v", res, err)
	}
}

// TestColdLookups drops the files from the page cache before each lookup,
// which sends lookups down the cold path (rows asked for all at once): the
// answers must not change, and the fence must keep index reads to about one
// page.
func TestColdLookups(t *testing.T) {
	p, keys := fenceCSV(t, xxh3.Hash)
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	want := map[string]string{}
	for _, k := range keys[:200] {
		want[k] = get(t, ix, k)
	}
	var pages int
	for _, k := range keys[:200] {
		if err := ix.DropCache(); err != nil {
			t.Skipf("no cache control here: %v", err)
		}
		if got := get(t, ix, k); got != want[k] {
			t.Fatalf("cold Get(%s) differs from the warm one", k)
		}
		r, err := ix.Resident()
		if err != nil {
			t.Fatal(err)
		}
		pages += r.Index
	}
	if per := float64(pages) / 200; per > 1.5 {
		t.Fatalf("%.2f index pages read per cold lookup through the fence, want about 1", per)
	}
}

// TestColdPathHeavyKeys sends every lookup down the cold path, where rows
// are asked for (madvise WILLNEED) in windows ahead of the one being read,
// on keys of 1 to 3,000 rows: the answers must be the warm ones.
func TestColdPathHeavyKeys(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("id,key,v\n")
	heavy := map[string]int{"h1": 1, "h17": 17, "h600": 600, "h3000": 3000}
	for i := 0; i < 9000; i++ {
		for k, n := range heavy {
			if i%(9000/n) == 0 && i/(9000/n) < n {
				fmt.Fprintf(&csv, "%d,%s,x\n", i, k)
			}
		}
		fmt.Fprintf(&csv, "%d,o%d,y\n", i, i%700)
	}
	p := writeCSV(t, csv.String())
	build(t, p, &BuildOptions{Key: "key"})
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	keys := []string{"h1", "h17", "h600", "h3000", "o5", "missing"}
	want := map[string]string{}
	for _, k := range keys {
		want[k] = get(t, ix, k)
	}
	wantBatch := get(t, ix, keys...)
	if n := strings.Count(want["h3000"], "\n"); n != 3000 {
		t.Fatalf("h3000 has %d rows, want 3000", n)
	}
	defer func(d time.Duration) { coldSearch = d }(coldSearch)
	coldSearch = -1 // every search is slow
	for _, k := range keys {
		if got := get(t, ix, k); got != want[k] {
			t.Fatalf("Get(%s) on the cold path: %d bytes, warm %d", k, len(got), len(want[k]))
		}
	}
	if got := get(t, ix, keys...); got != wantBatch {
		t.Fatal("a batch on the cold path differs from the warm one")
	}
	if got := get(t, ix); got != "" { // no key at all
		t.Fatalf("Get of no keys on the cold path = %q", got)
	}

	// The same with a tail: rows of the same keys appended and indexed by
	// update, so that a batch asks for the pages of both files.
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 700; i++ {
		fmt.Fprintf(f, "t%d,h600,z\nt%d,o%d,z\n", i, i, i%9)
	}
	f.Close()
	if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	ix2, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if ix2.tail == nil {
		t.Fatal("no tail after update --no-compact")
	}
	coldSearch = time.Hour // warm
	wantTail := get(t, ix2, keys...)
	coldSearch = -1
	if got := get(t, ix2, keys...); got != wantTail || !strings.Contains(got, "t699,h600,z") {
		t.Fatal("a batch on the cold path with a tail differs from the warm one")
	}
}
