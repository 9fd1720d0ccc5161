package index

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/xxh3"
)

func runUpdate(t *testing.T, p string, opts *UpdateOptions) *UpdateResult {
	t.Helper()
	res, err := Update(context.Background(), p, opts)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return res
}

// checkLookups opens the index of the CSV at p and checks every nasty key
// against the generated rows.
func checkLookups(t *testing.T, p string, g *genCSV) {
	t.Helper()
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, k := range append(nastyKeys, "missing") {
		if got, want := get(t, ix, k), g.want(k); got != want {
			t.Fatalf("Get(%q) =\n%q\nwant\n%q", k, got, want)
		}
		if n, err := ix.Count([]byte(k)); err != nil || n != g.count(k) {
			t.Fatalf("Count(%q) = %d, %v; want %d", k, n, err, g.count(k))
		}
	}
}

// splitCSV generates a CSV and cuts it at a random row boundary, or in the
// middle of a row, so the first part ends with a complete or a partial row.
func splitCSV(r *rand.Rand, n int, partial bool) (g genCSV, first, rest string) {
	g = makeCSV(r, n, 1, ',', true, r.IntN(2) == 0)
	row := g.rows[len(g.rows)/2+r.IntN(len(g.rows)/3)]
	cut := row.off
	if partial {
		cut += 1 + r.IntN(max(1, len(row.text)-1))
	}
	return g, g.data[:cut], g.data[cut:]
}

// TestUpdate appends rows in one or several steps, cutting rows in the
// middle too, and checks after each update that lookups see exactly the
// rows of the whole file, that update leaves the main index untouched, and
// that compact writes what a build writes.
func TestUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	for i := 0; i < 30; i++ {
		g, first, rest := splitCSV(r, 200+r.IntN(800), i%2 == 0)
		p := writeCSV(t, first)
		build(t, p, &BuildOptions{Key: "1"})
		mainBefore, _ := os.ReadFile(DefaultIndexPath(p))
		steps := 1 + r.IntN(3)
		for s := 0; s < steps; s++ {
			piece := rest
			if s < steps-1 {
				piece = rest[:r.IntN(len(rest)+1)]
			}
			rest = rest[len(piece):]
			appendCSV(t, p, piece)
			res := runUpdate(t, p, &UpdateOptions{NoCompact: true})
			if piece != "" && res.Action != "tail" || piece == "" && res.Action != "none" && res.Action != "tail" {
				t.Fatalf("update after appending %d bytes did %q", len(piece), res.Action)
			}
		}
		if mainAfter, _ := os.ReadFile(DefaultIndexPath(p)); !bytes.Equal(mainAfter, mainBefore) {
			t.Fatal("update changed the main index")
		}
		checkLookups(t, p, &g)
		if res, err := Verify(context.Background(), p, nil); err != nil || !res.Equal || res.BytesBehind != 0 {
			t.Fatalf("Verify with a tail = %+v, %v", res, err)
		}
		if _, err := Compact(context.Background(), p, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tailPath(DefaultIndexPath(p))); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the tail outlived compact: %v", err)
		}
		compacted, _ := os.ReadFile(DefaultIndexPath(p))
		compactedFence, _ := os.ReadFile(fencePath(DefaultIndexPath(p)))
		out := filepath.Join(t.TempDir(), "fresh.csvidx")
		build(t, p, &BuildOptions{Key: "1", IndexPath: out})
		built, _ := os.ReadFile(out)
		builtFence, _ := os.ReadFile(fencePath(out))
		if !bytes.Equal(compacted, built) {
			t.Fatalf("compact and build differ (csv %d, first part %d bytes)", len(g.data), len(first))
		}
		if len(builtFence) == 0 || !bytes.Equal(compactedFence, builtFence) {
			t.Fatal("the fence compact wrote differs from the one build writes")
		}
		checkLookups(t, p, &g)
		if res, err := Verify(context.Background(), p, nil); err != nil || !res.Equal {
			t.Fatalf("Verify after compact = %+v, %v", res, err)
		}
	}
}

// TestUpdateCompactsByItself: a tail of a tenth of the main index is merged
// by update itself, unless NoCompact.
func TestUpdateCompactsByItself(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,user\n")
	for i := 0; i < 1000; i++ {
		b.WriteString("1,u" + string(rune('a'+i%26)) + "\n")
	}
	p := writeCSV(t, b.String())
	build(t, p, &BuildOptions{Key: "user"})
	appendCSV(t, p, strings.Repeat("2,new\n", 50))
	if res := runUpdate(t, p, nil); res.Action != "tail" {
		t.Fatalf("a 5%% append: %q, want a tail", res.Action)
	}
	appendCSV(t, p, strings.Repeat("3,new\n", 60))
	if res := runUpdate(t, p, &UpdateOptions{NoCompact: true}); res.Action != "tail" {
		t.Fatalf("an 11%% tail with NoCompact: %q, want a tail", res.Action)
	}
	if res := runUpdate(t, p, nil); res.Action != "none" {
		t.Fatalf("nothing appended: %q", res.Action)
	}
	appendCSV(t, p, "4,new\n")
	res := runUpdate(t, p, nil)
	if res.Action != "compact" || res.Info.Tail != nil {
		t.Fatalf("an 11%% tail: %q, tail %+v; want it merged", res.Action, res.Info.Tail)
	}
	if res.Info.Rows != 1111 || res.Info.Records != 1111 {
		t.Fatalf("after the merge: %d rows, %d records; want 1111", res.Info.Rows, res.Info.Records)
	}
}

// TestStaleTail: a tail made for another main index (a compact that was
// killed after replacing the main index, before removing the tail) is
// ignored by readers and replaced by the next update.
func TestStaleTail(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 42))
	g, first, rest := splitCSV(r, 600, true)
	p := writeCSV(t, first)
	build(t, p, &BuildOptions{Key: "1"})
	appendCSV(t, p, rest[:len(rest)/2])
	runUpdate(t, p, &UpdateOptions{NoCompact: true})
	tail := tailPath(DefaultIndexPath(p))
	old, _ := os.ReadFile(tail)
	if _, err := Compact(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tail, old, 0o644) // as if compact died before removing it
	appendCSV(t, p, rest[len(rest)/2:])
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatalf("Open with a stale tail: %v", err)
	}
	if ix.tail != nil {
		t.Fatal("a stale tail was used")
	}
	ix.Close()
	runUpdate(t, p, &UpdateOptions{NoCompact: true})
	checkLookups(t, p, &g)
}

// TestBrokenTail: a tail with a bad checksum or size is an error, never a
// silent loss of the appended rows.
func TestBrokenTail(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 43))
	_, first, rest := splitCSV(r, 2000, false)
	p := writeCSV(t, first)
	build(t, p, &BuildOptions{Key: "1"})
	appendCSV(t, p, rest)
	runUpdate(t, p, &UpdateOptions{NoCompact: true})
	tail := tailPath(DefaultIndexPath(p))
	good, _ := os.ReadFile(tail)
	for _, off := range []int{9, 100, format.PageSize + 5} {
		bad := bytes.Clone(good)
		bad[off] ^= 0x40
		os.WriteFile(tail, bad, 0o644)
		ix, err := Open(p, nil)
		if err == nil {
			err = ix.Get([][]byte{[]byte("u1"), []byte("u2"), []byte("7"), []byte("")}, func([]byte) error { return nil })
			ix.Close()
		}
		if !broken(err) {
			t.Fatalf("a tail with byte %d flipped: %v, want an error saying it is broken", off, err)
		}
	}
	bad := bytes.Clone(good)
	bad[format.PageSize+20] ^= 1
	os.WriteFile(tail, bad, 0o644)
	if res, err := Verify(context.Background(), p, nil); err != nil || res.Equal {
		t.Fatalf("Verify of a tail with a flipped record byte = %+v, %v", res, err)
	}
	os.WriteFile(tail, good[:len(good)-1], 0o644)
	if _, err := Open(p, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a truncated tail: %v", err)
	}
	os.WriteFile(tail, good, 0o644)
	if _, err := Compact(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
}

// TestWritersSerialized: a writer that finds the lock taken waits, or with
// NoWait fails at once with ErrLocked.
func TestWritersSerialized(t *testing.T) {
	p := writeCSV(t, "id,user\n1,u1\n")
	build(t, p, &BuildOptions{Key: "user"})
	lock, err := lockIndex(p, DefaultIndexPath(p), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), p, &BuildOptions{Key: "user", NoWait: true}); !errors.Is(err, ErrLocked) {
		t.Fatalf("Build with the lock taken: %v", err)
	}
	if _, err := Update(context.Background(), p, &UpdateOptions{NoWait: true}); !errors.Is(err, ErrLocked) {
		t.Fatalf("Update with the lock taken: %v", err)
	}
	if _, err := Compact(context.Background(), p, &CompactOptions{NoWait: true}); !errors.Is(err, ErrLocked) {
		t.Fatalf("Compact with the lock taken: %v", err)
	}
	done := make(chan error)
	go func() {
		_, err := Build(context.Background(), p, &BuildOptions{Key: "user"})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a build went ahead while the lock was held: %v", err)
	case <-timeAfter():
	}
	lock.unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Temporary files a killed writer left are removed by the next one.
	idx := DefaultIndexPath(p)
	good, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	for _, own := range []struct {
		path string
		data []byte
	}{
		{atomicfile.TempName(idx), good}, // complete, not renamed
		{atomicfile.TempName(idx), append(make([]byte, format.PageSize), good[format.PageSize:]...)}, // header page not yet written
		{atomicfile.TempName(tailPath(idx)), nil},                                                    // just created
		{atomicfile.TempName(fencePath(idx)), []byte(fence.Magic + "...")},                           // a fence
		{atomicfile.TempName(filepath.Join(filepath.Dir(idx), spillName(idx))), nil},
	} {
		if err := os.WriteFile(own.path, own.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build(t, p, &BuildOptions{Key: "user"})
	checkOnlyFiles(t, p)
}

// TestLeftoversOnlyOwn: a writer removes only leftovers it can tell are
// csvidx's: under a name atomicfile.TempName makes, and empty, zeros or
// starting with a magic. A user's files with like names stay, byte for byte.
func TestLeftoversOnlyOwn(t *testing.T) {
	p := writeCSV(t, "id,user\n1,u1\n")
	idx := DefaultIndexPath(p)
	build(t, p, &BuildOptions{Key: "user"})
	dir := filepath.Dir(p)
	foreign := map[string][]byte{
		idx + ".tmp-2024":                       nil,                 // a user's name
		idx + ".tmp-csvidx-0123":                nil,                 // too short for ours
		idx + ".tmp-csvidx-0123456789ABCDEF":    nil,                 // upper case: not ours
		tailPath(idx) + ".tmp-9":                []byte("junk"),      // old-style name
		atomicfile.TempName(idx):                []byte("report\n"),  // our name, not our contents
		atomicfile.TempName(fencePath(idx)):     []byte("\x00\x00x"), // zeros, then not
		filepath.Join(dir, "report.tmp-2024"):   nil,
		filepath.Join(dir, "t.csv.csvidx.sort"): nil,
	}
	for path, data := range foreign {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := atomicfile.TempName(idx) // our name, but a link
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	build(t, p, &BuildOptions{Key: "user"})
	if _, err := Update(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
	for path, data := range foreign {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %q, %v; want it kept as %q", filepath.Base(path), got, err, data)
		}
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the link was removed: %v", err)
	}
}

// timeAfter gives a waiting writer time to show it waits.
func timeAfter() <-chan time.Time { return time.After(200 * time.Millisecond) }

// TestCompactIntoFormat2: compact writes what a build writes, in format 2,
// whatever main index it merges: one in format 1 (written before format
// 2), one whose fingerprints are too short for the merged index (built
// anew), and with keys whose hashes share fingerprints (the runs of a
// format 1 file, the tail's or main's, merged by offset).
func TestCompactIntoFormat2(t *testing.T) {
	shared := func(t *testing.T) { // 4096 fingerprints at F = 32, every hash distinct below them
		useHash(t, func(k []byte) uint64 { h := xxh3.Hash(k); return h&(0xfff<<52) | h&0xffff })
	}
	for _, c := range []struct {
		name     string
		setup    func(t *testing.T)
		flatMain bool // the main index is written in format 1
		grow     bool // F grows past main's
	}{
		{name: "Format1Main", flatMain: true},
		{name: "SharedFingerprints", setup: shared},
		{name: "SharedFingerprintsFormat1Main", setup: shared, flatMain: true},
		{name: "FingerprintsGrow", grow: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				c.setup(t)
			}
			r := rand.New(rand.NewPCG(43, 43))
			for i := 0; i < 8; i++ {
				g, first, rest := splitCSV(r, 300+r.IntN(1500), i%2 == 0)
				p := writeCSV(t, first)
				testFlat, testFPBits = c.flatMain, nil
				build(t, p, &BuildOptions{Key: "1"})
				testFlat = false
				if c.grow {
					ix, err := Open(p, nil)
					if err != nil {
						t.Fatal(err)
					}
					n := ix.main.h.Records
					ix.Close()
					useFPBits(t, func(records uint64) int { return 32 + int(min(records/(n+1), 1)) })
				}
				appendCSV(t, p, rest)
				runUpdate(t, p, &UpdateOptions{NoCompact: true})
				if _, err := Compact(context.Background(), p, nil); err != nil {
					t.Fatal(err)
				}
				compacted, _ := os.ReadFile(DefaultIndexPath(p))
				out := filepath.Join(t.TempDir(), "fresh.csvidx")
				build(t, p, &BuildOptions{Key: "1", IndexPath: out})
				built, _ := os.ReadFile(out)
				if !bytes.Equal(compacted, built) {
					t.Fatalf("input %d: compact and build differ (csv %d, first part %d bytes)", i, len(g.data), len(first))
				}
				if h, err := format.DecodeHeader(compacted); err != nil || !h.Dense() || c.grow && h.FPBits != 33 && h.Records > 0 {
					t.Fatalf("input %d: the compacted header %+v, %v: want format 2 (and F 33 when grown)", i, h, err)
				}
				checkLookups(t, p, &g)
			}
		})
	}
}

// TestCompactDamagedPart: a damaged record page of the main index or of the
// tail stops a compaction with an index to rebuild that names the damaged
// file and page: the merge's page errors are worded by the file they came
// from (part.reading), and nothing is replaced.
func TestCompactDamagedPart(t *testing.T) {
	for _, which := range []string{"main", "tail"} {
		t.Run(which, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 7))
			_, first, rest := splitCSV(r, 3000, true)
			p := writeCSV(t, first)
			build(t, p, &BuildOptions{Key: "1"})
			appendCSV(t, p, rest)
			runUpdate(t, p, &UpdateOptions{NoCompact: true})
			path := DefaultIndexPath(p)
			if which == "tail" {
				path = tailPath(path)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data[format.PageSize+100] ^= 0xff // record page 0, its CRC now wrong
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Compact(context.Background(), p, nil)
			var re *RebuildError
			if !errors.As(err, &re) || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path+": corrupt") ||
				!strings.Contains(err.Error(), "record page 0") {
				t.Fatalf("Compact over a damaged %s: %v, want an index to rebuild naming %s and its record page 0", which, err, path)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
				t.Fatalf("the damaged %s was replaced", which)
			}
		})
	}
}
