package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/zeebo/xxh3"
)

// fuzzSetup is the CSV the index fuzz target reads and its good index
// files: a main index over the first rows, a tail over the rest, a fence.
type fuzzSetup struct {
	g                 genCSV
	csvPath           string
	main, tail, fence []byte
}

// setupFuzz writes a CSV of rows rows into dir and builds its index files:
// the main index over the first mainRows rows, the tail over the rest.
func setupFuzz(dir string, rows, mainRows int) (*fuzzSetup, error) {
	r := rand.New(rand.NewPCG(5, 5))
	g := makeCSV(r, rows, 1, ',', true, false)
	p := filepath.Join(dir, "f.csv")
	cut := g.rows[mainRows].off // the main index covers the rows before it
	if err := os.WriteFile(p, []byte(g.data[:cut]), 0o644); err != nil {
		return nil, err
	}
	ctx := context.Background()
	if _, err := Build(ctx, p, &BuildOptions{Key: "1"}); err != nil {
		return nil, err
	}
	if err := os.WriteFile(p, []byte(g.data), 0o644); err != nil {
		return nil, err
	}
	if _, err := Update(ctx, p, &UpdateOptions{NoCompact: true}); err != nil {
		return nil, err
	}
	idx := DefaultIndexPath(p)
	s := &fuzzSetup{g: g, csvPath: p}
	var err error
	for _, f := range []struct {
		dst  *[]byte
		path string
	}{{&s.main, idx}, {&s.tail, tailPath(idx)}, {&s.fence, fencePath(idx)}} {
		if *f.dst, err = os.ReadFile(f.path); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// wantUpTo returns the rows a lookup of key must print from an index that
// covers the CSV's first covered bytes.
func (g *genCSV) wantUpTo(key string, covered int) string {
	var b strings.Builder
	for _, row := range g.rows {
		if row.hasKey && row.key == key && row.off < covered {
			b.WriteString(row.text)
			if !strings.HasSuffix(row.text, "\n") {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// forgeChecksums rewrites every checksum of the index, tail and fence
// bytes to match their contents, so that the fuzzer gets past them to the
// fields and records they protect.
func forgeChecksums(index []byte, fenceFile []byte) {
	for off := 0; off+format.PageSize <= len(index); off += format.PageSize {
		crcpage.Seal(index[off : off+format.PageSize])
	}
	const fenceHeader = 4096 // the fence's header page, then 8-byte entries
	if len(fenceFile) >= fenceHeader {
		binary.LittleEndian.PutUint64(fenceFile[32:], xxh3.Hash(fenceFile[fenceHeader:]))
		crcpage.Seal(fenceFile)
	}
}

// FuzzIndexFiles opens a CSV's index, tail and fence files as the fuzzer
// rewrote them, looks up keys, and verifies. With checksums as written, a
// lookup must print exactly the right rows for what the index covers or
// fail with ErrCorrupt; with checksums forged to match (forge, or by the
// fuzzer itself), the files
// say whatever the fuzzer likes, and csvidx must still neither panic nor
// hang, nor print anything but whole lines of the CSV. An empty tail or fence is a
// missing one.
func FuzzIndexFiles(f *testing.F) {
	s, err := setupFuzz(f.TempDir(), 800, 600) // 3 index pages, 1 tail page
	if err != nil {
		f.Fatal(err)
	}
	f.Add(s.main, s.tail, s.fence, false)
	f.Add(s.main, s.tail, s.fence, true)
	f.Add(s.main, []byte{}, []byte{}, true)
	f.Add(s.main[:format.PageSize], s.tail[:format.PageSize], s.fence, true)
	f.Fuzz(func(t *testing.T, main, tail, fenceFile []byte, forge bool) {
		fuzzIndexOnce(t, s, main, tail, fenceFile, forge)
	})
}

// corruptionStats counts what a run of fuzzIndexOnce saw.
type corruptionStats struct {
	runs, refused, failed, right, verified int // opens refused, lookups failed or right, verifies that found a difference
}

// fuzzIndexOnce is one run of FuzzIndexFiles.
func fuzzIndexOnce(t *testing.T, s *fuzzSetup, main, tail, fenceFile []byte, forge bool) (st corruptionStats) {
	st.runs = 1
	if forge {
		forgeChecksums(main, nil)
		forgeChecksums(tail, fenceFile)
	}
	dir := t.TempDir()
	idx := filepath.Join(dir, "f.csvidx")
	for _, file := range []struct {
		path string
		b    []byte
	}{{idx, main}, {tailPath(idx), tail}, {fencePath(idx), fenceFile}} {
		if len(file.b) == 0 && file.path != idx {
			continue
		}
		if err := os.WriteFile(file.path, file.b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The checksums are what makes a lookup trust a page: the strict
	// promise holds when every changed page fails its checksum. The fuzzer
	// learns checksums from the comparisons it watches, so it sometimes
	// forges them without being asked.
	strict := !forge && !checksumForged(main, s.main) && !checksumForged(tail, s.tail)
	opts := &Options{IndexPath: idx}
	ix, err := Open(s.csvPath, opts)
	if err != nil {
		if !broken(err) && !errors.Is(err, ErrStale) {
			t.Fatalf("Open: %v is not a broken or stale index", err)
		}
		st.refused++
	} else {
		defer ix.Close()
		covered := int(ix.furthest().Scanned)
		for _, k := range append(nastyKeys, "missing") {
			var rows [][]byte
			err := ix.Lookup([]byte(k), func(row []byte) error { rows = append(rows, bytes.Clone(row)); return nil })
			switch {
			case err != nil:
				if !errors.Is(err, ErrCorrupt) && !(errors.Is(err, ErrStale) && !strict) {
					t.Fatalf("Lookup(%q): %v is not ErrCorrupt", k, err)
				}
				st.failed++
			case strict:
				if got, want := bytes.Join(rows, nil), s.g.wantUpTo(k, covered); string(got) != want {
					t.Fatalf("Lookup(%q) = %q, want %q", k, got, want)
				}
				st.right++
			default:
				checkLines(t, s.g.data, k, rows)
			}
		}
	}
	res, err := Verify(context.Background(), s.csvPath, &VerifyOptions{IndexPath: idx})
	if err != nil {
		if !errors.Is(err, ErrStale) {
			t.Fatalf("Verify: %v", err)
		}
		return st
	}
	changed := !bytes.Equal(main, s.main)
	if strict { // every change to checksummed bytes is a difference
		changed = changed || len(tail) > 0 && !bytes.Equal(tail, s.tail)
		// A fence whose intact header names another index is a note, not
		// a difference: it is what an interrupted writer leaves.
		_, intact := fence.Generation(fenceFile)
		foreign := intact && !bytes.Equal(fenceFile[:format.PageSize], s.fence[:format.PageSize])
		changed = changed || len(fenceFile) > 0 && !foreign && !bytes.Equal(fenceFile, s.fence)
	}
	if res.Equal && changed {
		t.Fatalf("Verify found changed index files equal to a fresh build (notes %q)", res.Notes)
	}
	if !res.Equal {
		st.verified++
	}
	return st
}

// checksumForged reports whether a page of an index file differs from the
// good file's yet carries a valid checksum.
func checksumForged(file, good []byte) bool {
	for off := 0; off+format.PageSize <= min(len(file), len(good)); off += format.PageSize {
		page := file[off : off+format.PageSize]
		if !bytes.Equal(page, good[off:off+format.PageSize]) && crcpage.Intact(page) {
			return true
		}
	}
	return false
}

// checkLines checks that rows, printed by a lookup of key from an index
// the fuzzer forged, are lines of the CSV data: whole, from a line start
// to a newline. A forged index may lose or repeat rows, or point into a
// quoted field after one of its newlines, but never print a partial line
// or bytes from anywhere else.
func checkLines(t *testing.T, data, key string, rows [][]byte) {
	t.Helper()
	for _, row := range rows {
		if !bytes.HasSuffix(row, []byte("\n")) || !strings.HasPrefix(data, string(row)) && !strings.Contains(data, "\n"+string(row)) &&
			!strings.HasPrefix(data, "\xEF\xBB\xBF"+string(row)) {
			t.Fatalf("Lookup(%q) printed %q, not a line of the CSV", key, row)
		}
	}
}
