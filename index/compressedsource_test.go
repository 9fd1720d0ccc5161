package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/compressed"
	_ "github.com/csvidx/csvidx/source/compressed" // the backends of BGZF and zstd files
)

// compressions are the ways of compressing a CSV that a build reads
// through windows, by the tools that write them.
var compressions = []struct{ name, tool, cmd, file string }{
	{"BGZF", "bgzip", `bgzip -c "$IN" > "$OUT"`, "a.csv.gz"},
	{"ZstdFrames", "zstd", `split -b 50000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`, "a.csv.zst"},
	{"Pzstd", "pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`, "a.csv.zst"},
	{"ZstdOneFrame", "zstd", `zstd -q -c "$IN" > "$OUT"`, "a.csv"},
	{"Gzip", "gzip", `gzip -c "$IN" > "$OUT"`, "a.csv.gz"},
	{"GzipMembers", "gzip", `split -b 70000 "$IN" "$IN.part." && for p in "$IN".part.*; do gzip -c "$p"; done > "$OUT"`, "a.csv.gz"},
	{"Pigz", "pigz", `pigz -c -p 2 "$IN" > "$OUT"`, "a.gz"},
}

// TestBuildCompressedEqualsPlain: the index of a compressed CSV, read
// through windows of its plain bytes, is the index of the plain CSV (the
// index keeps plain offsets and the plain bytes' checksums) with a source
// section: the same record pages and header fields, and table pages,
// for generated files of every dialect feature, with a header or not, one
// or two keys, on one thread or several with small chunks and windows.
func TestBuildCompressedEqualsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 40))
	for i := range len(compressions) + 2 {
		g := makeCSV(r, 3000+r.IntN(20000), 1, ',', i%2 == 0, i%3 == 2)
		c := compressions[i%len(compressions)]
		t.Run(fmt.Sprintf("%d-%s", i, c.name), func(t *testing.T) {
			comp := tooltest.Compress(t, []byte(g.data), c.tool, c.cmd, c.file)
			plain := writeCSV(t, g.data)
			for _, threads := range []int{1, 2} {
				res := Resources{Threads: threads}
				tu := chunked.Tuning{ChunkBytes: 4096 << (i % 3)}
				want, _ := buildBytes(t, plain, "1", i%2 != 0, res, tu)
				got, _ := buildBytes(t, comp, "1", i%2 != 0, res, tu)
				sameButSource(t, got, want, comp)
			}
		})
	}
}

// TestGetCompressed: lookups in a compressed CSV, each candidate row read
// through the source, give every key's rows (the generator's oracle), its
// count and the header, as the plain CSV's; so does the row API (Rows.Each
// and EachRecord, as over the plain CSV mapped), but Scan, which needs it
// mapped.
func TestGetCompressed(t *testing.T) {
	old := rowWindowBytes
	defer func() { rowWindowBytes = old }()
	r := rand.New(rand.NewPCG(41, 41))
	for i, c := range compressions {
		rowWindowBytes = []int{3, 16 << 10}[i%2] // a window shorter than any row: read again, doubled
		g := makeCSV(r, 2000+r.IntN(8000), 1, ',', i%2 == 0, i == 1)
		t.Run(c.name, func(t *testing.T) {
			comp := tooltest.Compress(t, []byte(g.data), c.tool, c.cmd, c.file)
			build(t, comp, &BuildOptions{Key: "1", NoHeader: i%2 != 0, Resources: Resources{Threads: 2}})
			ix, err := Open(comp, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			keys := map[string]bool{"absent key": true}
			for _, row := range g.rows {
				if row.hasKey {
					keys[row.key] = true
				}
			}
			for _, k := range nastyKeys {
				keys[k] = true
			}
			for key := range keys {
				if got, want := get(t, ix, key), g.want(key); got != want {
					t.Fatalf("key %q: got %q, want %q", key, got, want)
				}
				if n, err := ix.Count([]byte(key)); err != nil || n != g.count(key) {
					t.Fatalf("Count(%q) = %d, %v; want %d", key, n, err, g.count(key))
				}
			}
			some := make([][]byte, 0, 50)
			var want []string
			for _, row := range g.rows[:min(len(g.rows), 200)] {
				if row.hasKey && !slices.Contains(want, row.key) && len(some) < 50 {
					some = append(some, []byte(row.key))
					want = append(want, row.key)
				}
			}
			var got bytes.Buffer
			if err := ix.Get(some, func(row []byte) error { got.Write(row); return nil }); err != nil {
				t.Fatal(err)
			}
			if got.String() != g.wantAll(want) {
				t.Fatalf("Get of %d keys: the rows differ from the plain file's", len(some))
			}
			h, err := ix.Header()
			if err != nil || string(h) != g.header {
				t.Fatalf("Header = %q, %v; want %q", h, err, g.header)
			}
			info, err := ReadInfo(comp, nil)
			st, _ := os.Stat(comp)
			if err != nil || info.State != "fresh" || info.Compression == "" || info.FileBytes != st.Size() || info.TableBytes == 0 || info.CSVBytes != int64(len(g.data)) {
				t.Fatalf("ReadInfo = %+v, %v", info, err)
			}
			if _, err := ix.Scan(0); !errors.Is(err, errNotMapped) {
				t.Fatalf("Scan of a compressed CSV: %v", err)
			}
			// The row API reads through the source what it reads of the plain CSV mapped.
			plain := writeCSV(t, g.data)
			build(t, plain, &BuildOptions{Key: "1", NoHeader: i%2 != 0})
			pix, err := Open(plain, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer pix.Close()
			records := func(ix *Index) string {
				var b strings.Builder
				from := 0
				if _, end, ok := ix.HeaderAt(); ok {
					from = end
				}
				err := ix.Guard(func() error {
					return ix.EachRecord(context.Background(), from, func(sp Span, has bool) error {
						fmt.Fprintf(&b, "%d %d %v %v %q\n", sp.Start, sp.End, sp.Terminated, has, sp.Bytes)
						return nil
					})
				})
				if err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			if got, want := records(ix), records(pix); got != want {
				t.Fatalf("EachRecord: %d bytes of records, want %d", len(got), len(want))
			}
			rows, err := ix.Rows()
			if err != nil {
				t.Fatal(err)
			}
			prows, _ := pix.Rows()
			for _, k := range want {
				var got, exp strings.Builder
				for _, c := range []struct {
					r *Rows
					b *strings.Builder
				}{{rows, &got}, {prows, &exp}} {
					err := c.r.Each([]byte(k), func(sp Span) error {
						fmt.Fprintf(c.b, "%d %d %v %q\n", sp.Start, sp.End, sp.Terminated, sp.Bytes)
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				if got.String() != exp.String() {
					t.Fatalf("Rows.Each(%q): %q, want %q", k, got.String(), exp.String())
				}
			}
		})
	}
}

// wantAll returns the rows a lookup of all of keys must print: in file
// order, each once.
func (g *genCSV) wantAll(keys []string) string {
	var b strings.Builder
	for _, row := range g.rows {
		if row.hasKey && slices.Contains(keys, row.key) {
			b.WriteString(row.text)
			if !strings.HasSuffix(row.text, "\n") {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// sameButSource fails unless got, the index of the compressed file comp,
// is want, the plain file's index, with a source section: the same record
// pages and header fields but the flag, the section and the generation,
// and table pages after the record pages that describe comp.
func sameButSource(t *testing.T, got, want []byte, comp string) {
	t.Helper()
	gh, err := format.DecodeHeader(got)
	if err != nil {
		t.Fatal(err)
	}
	wh, err := format.DecodeHeader(want)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(comp)
	if err != nil {
		t.Fatal(err)
	}
	s := gh.Source
	if s == nil || s.Size != uint64(st.Size()) || (s.Backend != "bgzf" && s.Backend != "zstd" && s.Backend != "gzip") || wh.Source != nil {
		t.Fatalf("source sections: %+v (the compressed file is %d bytes), %+v", s, st.Size(), wh.Source)
	}
	records := format.PageSize * (1 + wh.Pages)
	if !bytes.Equal(got[format.PageSize:records], want[format.PageSize:records]) {
		t.Fatalf("the record pages differ")
	}
	if table, err := format.ReadTable(gh, got); err != nil || len(table) == 0 || uint64(len(got)) != gh.Size() {
		t.Fatalf("the table: %d bytes, %v; the file %d bytes, its header says %d", len(table), err, len(got), gh.Size())
	}
	gh.Flags &^= format.FlagSource
	gh.Source, gh.Generation, wh.Generation = nil, 0, 0
	if fmt.Sprint(*gh) != fmt.Sprint(*wh) {
		t.Fatalf("the headers differ:\n%+v\n%+v", *gh, *wh)
	}
}

// TestCompressedChanged: an index of a compressed file appended to is
// behind by the bytes appended, and answers from what it covers; it
// refuses the file once it changed on disk (replaced by other compressed
// data, shorter or longer) as stale; a byte flipped inside a frame, which keeps the file's
// size and ends, fails the lookups that read that frame, and never gives
// a wrong row.
func TestCompressedChanged(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 42))
	g := makeCSV(r, 150000, 1, ',', true, false) // compressed, more than twice 64 KiB: a middle outside both ends
	c := compressions[0]                         // bgzip
	comp := tooltest.Compress(t, []byte(g.data), c.tool, c.cmd, c.file)
	orig, err := os.ReadFile(comp)
	if err != nil {
		t.Fatal(err)
	}
	other := tooltest.Compress(t, []byte(g.data[:len(g.data)/2]), c.tool, c.cmd, c.file)
	otherBytes, _ := os.ReadFile(other)
	build(t, comp, &BuildOptions{Key: "1"})
	if err := os.WriteFile(comp, append(bytes.Clone(orig), otherBytes...), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(comp, nil) // appended to: behind, answered from what the index covers
	if err != nil || ix.BytesBehind() != int64(len(otherBytes)) {
		t.Fatalf("appended: Open = %v, %v; want %d bytes behind", ix, err, len(otherBytes))
	}
	for _, row := range g.rows[:200] {
		if got, want := get(t, ix, row.key), g.want(row.key); row.hasKey && got != want {
			t.Fatalf("appended: key %q: got %q, want %q", row.key, got, want)
		}
	}
	ix.Close()
	if info, err := ReadInfo(comp, nil); err != nil || info.State != "behind" || info.BytesBehind != int64(len(otherBytes)) {
		t.Errorf("appended: ReadInfo = %+v, %v; want the state behind", info, err)
	}
	for name, change := range map[string][]byte{
		"replaced":            otherBytes,
		"replaced and longer": append(bytes.Clone(otherBytes), orig...),
	} {
		if err := os.WriteFile(comp, change, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(comp, nil); !errors.Is(err, ErrStale) {
			t.Errorf("%s: Open = %v, want ErrStale", name, err)
		}
		if info, err := ReadInfo(comp, nil); err != nil || info.State != "stale" {
			t.Errorf("%s: ReadInfo = %+v, %v; want the state stale", name, info, err)
		}
	}
	bad := bytes.Clone(orig)
	bad[len(bad)/2] ^= 0x10
	if err := os.WriteFile(comp, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(comp, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	failed, seen := 0, map[string]bool{}
	for _, row := range g.rows {
		if !row.hasKey || seen[row.key] || len(seen) > 3000 {
			continue
		}
		seen[row.key] = true
		var b bytes.Buffer
		err := ix.Get([][]byte{[]byte(row.key)}, func(row []byte) error { b.Write(row); return nil })
		switch {
		case err != nil:
			failed++
		case b.String() != g.want(row.key):
			t.Fatalf("key %q: wrong rows %q from a damaged file, want %q", row.key, b.String(), g.want(row.key))
		}
	}
	if failed == 0 {
		t.Errorf("no lookup failed on a damaged frame")
	}
}

// TestVerifyCompressed: verify of a compressed CSV's index rebuilds it
// from the file walked anew: equal when the file is the one indexed, and
// the differences when its plain bytes changed, recompressed.
func TestVerifyCompressed(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 43))
	g := makeCSV(r, 30000, 1, ',', true, false)
	c := compressions[1] // zstd frames
	comp := tooltest.Compress(t, []byte(g.data), c.tool, c.cmd, c.file)
	build(t, comp, &BuildOptions{Key: "1"})
	res, err := Verify(context.Background(), comp, nil)
	if err != nil || !res.Equal {
		t.Fatalf("Verify of the file indexed: %+v, %v", res, err)
	}
	row := g.rows[len(g.rows)/2]
	changed := g.data[:row.off] + "x" + g.data[row.off+1:]
	other := tooltest.Compress(t, []byte(changed), c.tool, c.cmd, c.file)
	b, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(comp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Verify(context.Background(), comp, nil)
	if err != nil || res.Equal || len(res.Differences) == 0 {
		t.Fatalf("Verify of a changed file: %+v, %v; want differences", res, err)
	}
}

// TestUpdateCompressed: a compressed CSV appended to (a compressed file of
// more rows after it, cut anywhere: the last row indexed may be cut in
// two) is updated as a plain one is: a tail whose source section covers
// the whole file, lookups that give every key's rows of the whole CSV,
// verify equal, and a compact whose index is byte for byte a fresh
// build's; a second append is updated with UpdateAll.
func TestUpdateCompressed(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 44))
	for i, c := range compressions {
		g := makeCSV(r, 6000+r.IntN(6000), 1, ',', i%2 == 0, false)
		t.Run(c.name, func(t *testing.T) {
			cut1, cut2 := len(g.data)/2+r.IntN(99), len(g.data)*3/4
			var parts [][]byte
			for _, p := range []string{g.data[:cut1], g.data[cut1:cut2], g.data[cut2:]} {
				b, err := os.ReadFile(tooltest.Compress(t, []byte(p), c.tool, c.cmd, c.file))
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, b)
			}
			comp := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(comp, parts[0], 0o644); err != nil {
				t.Fatal(err)
			}
			build(t, comp, &BuildOptions{Key: "1", NoHeader: i%2 != 0})
			appendCSV(t, comp, string(parts[1]))
			res, err := Update(context.Background(), comp, &UpdateOptions{NoCompact: true})
			if err != nil || res.Action != "tail" || res.Info.State != "fresh" || res.Info.Tail == nil {
				t.Fatalf("Update = %+v, %v", res, err)
			}
			st, _ := os.Stat(comp)
			if res.Info.FileBytes != st.Size() {
				t.Fatalf("after the update, info says the file has %d bytes; it has %d", res.Info.FileBytes, st.Size())
			}
			opts := &BuildOptions{Key: "1", NoHeader: i%2 != 0}
			answersAsPlain(t, "tail", comp, g.data[:cut2], opts, g.rows)
			if _, err := Compact(context.Background(), comp, nil); err != nil {
				t.Fatal(err)
			}
			answersAsPlain(t, "compacted", comp, g.data[:cut2], opts, g.rows)
			compacted, err := os.ReadFile(comp + ".csvidx")
			if err != nil {
				t.Fatal(err)
			}
			fresh, _ := buildBytes(t, comp, "1", i%2 != 0, Resources{})
			if !bytes.Equal(compacted, fresh) {
				t.Fatalf("the compacted index (%d bytes) is not a fresh build's (%d bytes)", len(compacted), len(fresh))
			}
			appendCSV(t, comp, string(parts[2]))
			rs, err := UpdateAll(context.Background(), comp, &UpdateOptions{})
			if err != nil || len(rs) != 1 || rs[0].Action == "none" {
				t.Fatalf("UpdateAll = %v, %v", rs, err)
			}
			answersAsPlain(t, "second update", comp, g.data, opts, g.rows)
		})
	}
}

// TestGzipSpan: a plain gzip CSV built with checkpoints 64 KiB apart has
// more of them in its index than at the default span, answers every key
// as the plain file does, and keeps its span: verify walks the file with
// it and finds the index equal, an update after a member appended extends
// the table with it, and the compacted index is a fresh build's with it.
func TestGzipSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 47))
	g := makeCSV(r, 60000, 1, ',', true, false)
	cut := len(g.data) * 2 / 3
	c := compressions[4] // gzip
	parts := make([][]byte, 2)
	for i, p := range []string{g.data[:cut], g.data[cut:]} {
		b, err := os.ReadFile(tooltest.Compress(t, []byte(p), c.tool, c.cmd, c.file))
		if err != nil {
			t.Fatal(err)
		}
		parts[i] = b
	}
	dir := t.TempDir()
	comp, other := filepath.Join(dir, "a.csv.gz"), filepath.Join(dir, "b.csv.gz")
	for _, p := range []string{comp, other} {
		if err := os.WriteFile(p, parts[0], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	small := build(t, comp, &BuildOptions{Key: "1", GzipSpan: 64 << 10})
	def := build(t, other, &BuildOptions{Key: "1"})
	if small.TableBytes < 10*def.TableBytes {
		t.Fatalf("the table at a span of 64 KiB has %d bytes, at 1 MiB %d", small.TableBytes, def.TableBytes)
	}
	opts := &BuildOptions{Key: "1"}
	answersAsPlain(t, "built", comp, g.data[:cut], opts, g.rows[:3000])
	appendCSV(t, comp, string(parts[1]))
	if res, err := Update(context.Background(), comp, &UpdateOptions{NoCompact: true}); err != nil || res.Action != "tail" {
		t.Fatalf("Update = %+v, %v", res, err)
	}
	answersAsPlain(t, "updated", comp, g.data, opts, g.rows[:3000])
	if _, err := Compact(context.Background(), comp, nil); err != nil {
		t.Fatal(err)
	}
	answersAsPlain(t, "compacted", comp, g.data, opts, g.rows[:3000])
	compacted, err := os.ReadFile(comp + ".csvidx")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(comp + ".csvidx"); err != nil {
		t.Fatal(err)
	}
	build(t, comp, &BuildOptions{Key: "1", GzipSpan: 64 << 10})
	fresh, err := os.ReadFile(comp + ".csvidx")
	if err != nil || !bytes.Equal(compacted, fresh) {
		t.Fatalf("the compacted index (%d bytes) is not a fresh build's at the same span (%d bytes), %v", len(compacted), len(fresh), err)
	}
}

// TestCompactCompressedBOMRow: a compressed CSV whose last row, cut short
// when the main index was built, is a byte order mark's bytes mid-file
// (a row of one field), compacts after its completion as a fresh build
// indexes the file: the row is read from the byte before it, so that its
// first bytes are not skipped as a mark (which left a blank line, and no
// row at the main index's resume offset).
func TestCompactCompressedBOMRow(t *testing.T) {
	c := compressions[0] // bgzip
	first, err := os.ReadFile(tooltest.Compress(t, []byte("k,v\n1,a\n\xEF\xBB\xBF"), c.tool, c.cmd, c.file))
	if err != nil {
		t.Fatal(err)
	}
	more, err := os.ReadFile(tooltest.Compress(t, []byte("\n2,b\n"), c.tool, c.cmd, c.file))
	if err != nil {
		t.Fatal(err)
	}
	comp := filepath.Join(t.TempDir(), c.file)
	if err := os.WriteFile(comp, first, 0o644); err != nil {
		t.Fatal(err)
	}
	build(t, comp, &BuildOptions{Key: "v"})
	appendCSV(t, comp, string(more))
	if res, err := Update(context.Background(), comp, &UpdateOptions{NoCompact: true}); err != nil || res.Action != "tail" {
		t.Fatalf("Update = %+v, %v", res, err)
	}
	if _, err := Compact(context.Background(), comp, nil); err != nil {
		t.Fatal(err)
	}
	compacted, err := os.ReadFile(comp + ".csvidx")
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := buildBytes(t, comp, "v", false, Resources{})
	if !bytes.Equal(compacted, fresh) {
		t.Fatalf("the compacted index is not a fresh build's")
	}
}

// answersAsPlain fails unless the index of the compressed CSV comp, which
// holds data, covers all of it and answers the keys of rows as the index
// of a plain file of data built with opts does, and verifies equal.
func answersAsPlain(t *testing.T, what, comp, data string, opts *BuildOptions, rows []genRow) {
	t.Helper()
	plain := writeCSV(t, data) // the reference: the same bytes, plain
	build(t, plain, opts)
	want, err := Open(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	ix, err := Open(comp, nil)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer ix.Close()
	if ix.BytesBehind() != 0 {
		t.Fatalf("%s: %d bytes behind", what, ix.BytesBehind())
	}
	seen := map[string]bool{}
	for _, row := range rows {
		if !row.hasKey || seen[row.key] {
			continue
		}
		seen[row.key] = true
		if got, want := get(t, ix, row.key), get(t, want, row.key); got != want {
			t.Fatalf("%s: key %q: got %d bytes, want %d:\n%.300q\n%.300q", what, row.key, len(got), len(want), got, want)
		}
	}
	if v, err := Verify(context.Background(), comp, nil); err != nil || !v.Equal {
		t.Fatalf("%s: Verify = %+v, %v", what, v, err)
	}
}

// TestZstdOneLargeFrame: a zstd file in one frame over compressed.MaxFrame
// (plain zstd's output for a big CSV) is built and verified by decoding it
// front to back once: its index is the plain CSV's with a source section,
// and verify finds it equal; info describes it; a lookup, which would
// decode the frame from its start, is refused with the *FrameError that
// names csvidx compress.
func TestZstdOneLargeFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("a CSV of 70 MB")
	}
	var b strings.Builder
	b.WriteString("id,user,note\n")
	for i := 0; b.Len() < compressed.MaxFrame+6<<20; i++ {
		fmt.Fprintf(&b, "%d,u%d,a note of row %d, padded\n", i, i*7919%50021, i)
	}
	plain := writeCSV(t, b.String())
	comp := tooltest.Compress(t, []byte(b.String()), "zstd", `zstd -q -1 -c "$IN" > "$OUT"`, "a.csv.zst")
	res := Resources{Threads: 2}
	want, _ := buildBytes(t, plain, "user", false, res)
	got, _ := buildBytes(t, comp, "user", false, res)
	sameButSource(t, got, want, comp)

	build(t, comp, &BuildOptions{Key: "user", Resources: res})
	if r, err := Verify(context.Background(), comp, nil); err != nil || !r.Equal {
		t.Fatalf("Verify = %+v, %v", r, err)
	}
	if info, err := ReadInfo(comp, nil); err != nil || info.State != "fresh" {
		t.Fatalf("ReadInfo = %+v, %v", info, err)
	}
	ix, err := Open(comp, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var fe *compressed.FrameError
	err = ix.Lookup([]byte("u7919"), func([]byte) error { return nil })
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "csvidx compress") {
		t.Fatalf("Lookup = %v, want the *FrameError", err)
	}
}

// TestBuildPlainFrom: a build of a compressed CSV that reads its plain
// bytes from the plain file it was compressed from (csvidx compress --key)
// writes the index a build that decodes it writes; a plain file of another
// size, a plain CSV to build and a compressed file to read from are errors.
func TestBuildPlainFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 43))
	g := makeCSV(r, 20000, 1, ',', true, false)
	plain := writeCSV(t, g.data)
	for _, c := range compressions[:2] {
		t.Run(c.name, func(t *testing.T) {
			comp := tooltest.Compress(t, []byte(g.data), c.tool, c.cmd, c.file)
			want, _ := buildBytes(t, comp, "1", false, Resources{Threads: 2})
			out := filepath.Join(t.TempDir(), "i.csvidx")
			if _, err := Build(context.Background(), comp, &BuildOptions{Key: "1", IndexPath: out, PlainFrom: plain, Resources: Resources{Threads: 2}}); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			gh, gerr := format.DecodeHeader(got)
			wh, werr := format.DecodeHeader(want)
			if gerr != nil || werr != nil || gh.Source == nil {
				t.Fatalf("the headers: %v, %v, source %v", gerr, werr, gh.Source)
			}
			gs, ws := fmt.Sprint(*gh.Source), fmt.Sprint(*wh.Source)
			gh.Generation, wh.Generation, gh.Source, wh.Source = 0, 0, nil, nil
			if fmt.Sprint(*gh) != fmt.Sprint(*wh) || gs != ws || !bytes.Equal(got[format.PageSize:], want[format.PageSize:]) {
				t.Fatalf("the index differs from the decoding build's:\n%+v\n%+v", *gh, *wh)
			}
			// The plain bytes are read there, not decoded: other bytes of
			// the same size make another index.
			other := writeCSV(t, strings.Map(func(r rune) rune {
				if r >= 'a' && r < 'z' {
					return r + 1
				}
				return r
			}, g.data))
			if _, err := Build(context.Background(), comp, &BuildOptions{Key: "1", IndexPath: out, PlainFrom: other}); err != nil {
				t.Fatal(err)
			}
			if o, _ := os.ReadFile(out); bytes.Equal(o[format.PageSize:], want[format.PageSize:]) {
				t.Fatal("built from other bytes, the index is the same")
			}
			short := writeCSV(t, g.data[:len(g.data)-1])
			for _, bad := range [][2]string{{comp, short}, {plain, plain}, {comp, comp}} {
				if _, err := Build(context.Background(), bad[0], &BuildOptions{Key: "1", IndexPath: out, PlainFrom: bad[1]}); err == nil {
					t.Errorf("a build of %s from %s: no error", bad[0], bad[1])
				}
			}
		})
	}
}

// TestCompressedTableUndecodable: an index whose table does not decode as
// its backend's (here a BGZF frame table under a header, sealed anew,
// that says plain gzip: what an index written by another version of
// csvidx would be) is refused by lookups and info with the
// *RebuildError that wraps source.ErrTable and says to build it again, not
// with a bare decoding error.
func TestCompressedTableUndecodable(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 44))
	g := makeCSV(r, 3000, 1, ',', true, false)
	comp := tooltest.Compress(t, []byte(g.data), "bgzip", `bgzip -c "$IN" > "$OUT"`, "a.csv.gz")
	build(t, comp, &BuildOptions{Key: "1"})
	idx := comp + ".csvidx"
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	h, err := format.DecodeHeader(data)
	if err != nil || h.Source == nil || h.Source.Backend != "bgzf" {
		t.Fatalf("the header: %+v, %v", h, err)
	}
	h.Source.Backend = "gzip"
	page := make([]byte, format.PageSize)
	h.Encode(page)
	copy(data, page)
	if err := os.WriteFile(idx, data, 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		var rebuild *RebuildError
		if !errors.As(err, &rebuild) || !errors.Is(err, source.ErrTable) || !strings.Contains(err.Error(), "rebuild the index") {
			t.Errorf("%s: %v, want a *RebuildError wrapping source.ErrTable", what, err)
		}
	}
	_, err = Open(comp, nil)
	check("Open", err)
	_, err = ReadInfo(comp, nil)
	check("ReadInfo", err)
	// verify reads the file anew, by its own first bytes, and finds the
	// index other than a build's.
	if res, err := Verify(context.Background(), comp, nil); err != nil || res.Equal || len(res.Differences) == 0 {
		t.Errorf("Verify = %+v, %v; want differences", res, err)
	}
}
