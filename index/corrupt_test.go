package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
)

// TestByteFlips flips one bit of every byte of a small index in turn. Each
// lookup must give exactly the right rows or an error that says the index is
// broken, and Verify must report every flip.
func TestByteFlips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	g := makeCSV(r, 700, 1, ',', true, true) // three record pages
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	idxPath := DefaultIndexPath(p)
	good, err := os.ReadFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(idxPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := append(nastyKeys, "missing")
	var flips, refused, verified int // opens or lookups refused, verifies done
	for i := range good {
		// Flip a bit in place and put it back afterwards: rewriting the
		// file would cost a flush to disk each time on ext4.
		if _, err := f.WriteAt([]byte{good[i] ^ 1<<(i%8)}, int64(i)); err != nil {
			t.Fatal(err)
		}
		flips++
		ix, err := Open(p, nil)
		if err != nil {
			if !broken(err) {
				t.Fatalf("flip at %d: Open error %v does not say the index is broken", i, err)
			}
			refused++
		} else {
			for _, k := range keys {
				var got []byte
				err := ix.Lookup([]byte(k), func(row []byte) error { got = append(got, row...); return nil })
				if err != nil {
					if !errors.Is(err, ErrCorrupt) {
						t.Fatalf("flip at %d: Lookup(%q) error %v is not ErrCorrupt", i, k, err)
					}
					refused++
					continue
				}
				if want := g.want(k); string(got) != want {
					t.Fatalf("flip at %d: Lookup(%q) = %q, want %q", i, k, got, want)
				}
			}
			ix.Close()
		}
		if i%7 == 0 {
			res, err := Verify(context.Background(), p, nil)
			if err != nil {
				t.Fatalf("flip at %d: Verify: %v", i, err)
			}
			if res.Equal {
				t.Fatalf("flip at %d: Verify found the index equal to a fresh build", i)
			}
			verified++
		}
		if _, err := f.WriteAt(good[i:i+1], int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d flips: %d opens or lookups refused, 0 wrong answers; %d verified as differing", flips, refused, verified)
}

// TestTruncatedIndex opens the index cut to every shorter length.
func TestTruncatedIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	g := makeCSV(r, 300, 0, ',', false, false)
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "0", NoHeader: true})
	idxPath := DefaultIndexPath(p)
	good, _ := os.ReadFile(idxPath)
	for n := len(good) - 1; n >= 0; n-- {
		if err := os.Truncate(idxPath, int64(n)); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(p, nil)
		if err == nil {
			ix.Close()
			t.Fatalf("an index cut to %d of %d bytes opened", n, len(good))
		}
		if !broken(err) {
			t.Fatalf("cut to %d bytes: %v does not say the index is broken", n, err)
		}
	}
}

// TestRandomCorruption damages the index, tail and fence of a larger CSV at
// random (bytes changed, a 4 KiB stretch zeroed or overwritten, the file
// cut to a random length), many times. Each lookup must give exactly the
// right rows or an error, and Verify must report each change to the
// checksummed files.
func TestRandomCorruption(t *testing.T) {
	s, err := setupFuzz(t.TempDir(), 20000, 15000) // 59 index pages, 20 tail pages
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(6, 6))
	n := 300
	if testing.Short() {
		n = 30
	}
	var total corruptionStats
	for i := 0; i < n; i++ {
		files := [][]byte{bytes.Clone(s.main), bytes.Clone(s.tail), bytes.Clone(s.fence)}
		j := r.IntN(3)
		b := files[j]
		switch r.IntN(4) {
		case 0: // a few bytes changed
			for k := 1 + r.IntN(8); k > 0; k-- {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
		case 1: // a stretch zeroed, as a lost write leaves it
			off := r.IntN(len(b))
			clear(b[off:min(len(b), off+4096)])
		case 2: // a stretch of random bytes
			off := r.IntN(len(b))
			for k := off; k < min(len(b), off+4096); k++ {
				b[k] = byte(r.Uint32())
			}
		case 3: // cut short (an empty tail or fence is a missing one)
			files[j] = b[:r.IntN(len(b))]
		}
		if bytes.Equal(files[j], [][]byte{s.main, s.tail, s.fence}[j]) {
			continue // the change changed nothing
		}
		st := fuzzIndexOnce(t, s, files[0], files[1], files[2], false)
		total.runs++
		total.refused += st.refused
		total.failed += st.failed
		total.right += st.right
		total.verified += st.verified
	}
	t.Logf("%d random corruptions: %d opens refused, %d lookups failed cleanly, %d right, 0 wrong; verify reported %d",
		total.runs, total.refused, total.failed, total.right, total.verified)
}

// TestTruncatedTailAndFence cuts the tail and the fence to every shorter
// length: a cut tail is refused as broken; a cut fence is ignored, and
// lookups answer exactly as without it.
func TestTruncatedTailAndFence(t *testing.T) {
	s, err := setupFuzz(t.TempDir(), 800, 600)
	if err != nil {
		t.Fatal(err)
	}
	idx := DefaultIndexPath(s.csvPath)
	keys := []string{"u1", "7", "", "missing"}
	for n := len(s.tail) - 1; n >= 0; n-- {
		if err := os.WriteFile(tailPath(idx), s.tail[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(s.csvPath, nil)
		if err == nil {
			ix.Close()
			t.Fatalf("a tail cut to %d of %d bytes opened", n, len(s.tail))
		}
		if !broken(err) {
			t.Fatalf("tail cut to %d bytes: %v does not say the tail is broken", n, err)
		}
	}
	if err := os.WriteFile(tailPath(idx), s.tail, 0o644); err != nil {
		t.Fatal(err)
	}
	for n := len(s.fence) - 1; n >= 0; n-- {
		if err := os.WriteFile(fencePath(idx), s.fence[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(s.csvPath, nil)
		if err != nil {
			t.Fatalf("fence cut to %d bytes: Open: %v", n, err)
		}
		for _, k := range keys {
			var got []byte
			if err := ix.Lookup([]byte(k), func(row []byte) error { got = append(got, row...); return nil }); err != nil {
				t.Fatalf("fence cut to %d bytes: Lookup(%q): %v", n, k, err)
			}
			if want := s.g.want(k); string(got) != want {
				t.Fatalf("fence cut to %d bytes: Lookup(%q) = %q, want %q", n, k, got, want)
			}
		}
		ix.Close()
	}
}

// TestByteFlipsTailAndFence flips one bit of every byte of a tail and of a
// fence in turn. Each lookup must give exactly the right rows or fail with
// ErrCorrupt (a fence is never trusted, so its flips cost at most speed),
// and Verify, on every 16th flip, must report the change.
func TestByteFlipsTailAndFence(t *testing.T) {
	s, err := setupFuzz(t.TempDir(), 800, 600)
	if err != nil {
		t.Fatal(err)
	}
	idx := DefaultIndexPath(s.csvPath)
	keys := append(nastyKeys, "missing")
	for _, file := range []struct {
		path string
		good []byte
	}{{tailPath(idx), s.tail}, {fencePath(idx), s.fence}} {
		f, err := os.OpenFile(file.path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		var refused, failed, verified int
		for i := range file.good {
			if _, err := f.WriteAt([]byte{file.good[i] ^ 1<<(i%8)}, int64(i)); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(s.csvPath, nil)
			if err != nil {
				if !broken(err) {
					t.Fatalf("%s, flip at %d: Open: %v does not say it is broken", file.path, i, err)
				}
				refused++
			} else {
				covered := int(ix.furthest().Scanned)
				for _, k := range keys {
					var got []byte
					err := ix.Lookup([]byte(k), func(row []byte) error { got = append(got, row...); return nil })
					if err != nil {
						if !errors.Is(err, ErrCorrupt) {
							t.Fatalf("%s, flip at %d: Lookup(%q): %v is not ErrCorrupt", file.path, i, k, err)
						}
						failed++
					} else if want := s.g.wantUpTo(k, covered); string(got) != want {
						t.Fatalf("%s, flip at %d: Lookup(%q) = %q, want %q", file.path, i, k, got, want)
					}
				}
				ix.Close()
			}
			if i%16 == 0 {
				res, err := Verify(context.Background(), s.csvPath, nil)
				if err != nil || res.Equal {
					t.Fatalf("%s, flip at %d: Verify = %+v, %v; want a difference", file.path, i, res, err)
				}
				verified++
			}
			if _, err := f.WriteAt(file.good[i:i+1], int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
		t.Logf("%s: %d flips: %d opens refused, %d lookups failed cleanly, 0 wrong; %d verified as differing",
			filepath.Base(file.path), len(file.good), refused, failed, verified)
	}
}

// TestDuplicatedRecord forges an index with valid checksums that holds a
// record twice, in place of another one, within a page and across a page
// boundary. Lookups that rely on that page fail with ErrCorrupt instead of
// printing a row twice and missing another, and Verify reports it.
func TestDuplicatedRecord(t *testing.T) {
	useFlat(t) // format 1's records; format 2's runs are strictly increasing by construction of their codes
	var b bytes.Buffer
	b.WriteString("id,user\n")
	for i := range 600 { // three record pages
		fmt.Fprintf(&b, "%d,k%d\n", i, i)
	}
	p := writeCSV(t, b.String())
	build(t, p, &BuildOptions{Key: "user"})
	idxPath := DefaultIndexPath(p)
	good, err := os.ReadFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		from, to int // record from is copied over record to
	}{
		{"WithinPage", 40, 41},
		{"AcrossPages", format.RecordsPerPage - 1, format.RecordsPerPage},
	} {
		t.Run(c.name, func(t *testing.T) {
			forged := bytes.Clone(good)
			rec := func(i int) []byte { return forged[format.RecordPos(uint64(i)):][:format.RecordSize] }
			lost := binary.LittleEndian.Uint64(rec(c.to)[8:]) // the offset of the row whose record is overwritten
			copy(rec(c.to), rec(c.from))
			pg := forged[format.PageSize*(1+c.to/format.RecordsPerPage):][:format.PageSize]
			binary.LittleEndian.PutUint32(pg[format.CRCOffset:], format.PageCRC(pg))
			if err := os.WriteFile(idxPath, forged, 0o644); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			dup := b.Bytes()[binary.LittleEndian.Uint64(rec(c.from)[8:]):]
			dupKey := bytes.SplitN(dup, []byte("\n"), 2)[0]
			_, dupKey, _ = bytes.Cut(dupKey, []byte(","))
			lostKey := bytes.SplitN(b.Bytes()[lost:], []byte("\n"), 2)[0]
			_, lostKey, _ = bytes.Cut(lostKey, []byte(","))
			for _, k := range [][]byte{dupKey, lostKey} {
				err := ix.Lookup(k, func([]byte) error { return nil })
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("Lookup(%s) = %v, want ErrCorrupt", k, err)
				}
			}
			res, err := Verify(context.Background(), p, nil)
			if err != nil || res.Equal || !strings.Contains(strings.Join(res.Differences, "\n"), "does not come after") {
				t.Errorf("Verify = %+v, %v; want the duplicate reported", res, err)
			}
		})
	}
}
