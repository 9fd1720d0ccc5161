package compressed

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"

	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source"
)

// gzipFile returns the path of a file holding data compressed by the
// shell script cmd with tool (see tooltest.Compress).
func gzipFile(t *testing.T, data []byte, tool, cmd string) string {
	return tooltest.Compress(t, data, tool, cmd, "a.csv.gz")
}

// gzipMember returns a gzip member that holds plain, deflated at level,
// whose header has the optional fields flg asks for (gzipExtra, gzipName,
// gzipComment, gzipHCRC), as gzip itself never writes them all.
func gzipMember(t testing.TB, plain []byte, level int, flg byte) []byte {
	t.Helper()
	h := []byte{0x1f, 0x8b, 8, flg, 1, 2, 3, 4, 0, 3}
	if flg&gzipExtra != 0 {
		h = append(h, 6, 0, 'A', 'B', 2, 0, 'x', 'y')
	}
	if flg&gzipName != 0 {
		h = append(h, "orders.csv\x00"...)
	}
	if flg&gzipComment != 0 {
		h = append(h, "a comment\x00"...)
	}
	if flg&gzipHCRC != 0 {
		h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	}
	var b bytes.Buffer
	b.Write(h)
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(plain)
	w.Close()
	b.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(plain)), uint32(len(plain))))
	return b.Bytes()
}

// writeFile writes data to name in a new test directory and returns its
// path.
func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGzip: what gzip and pigz write, in one member or several (with
// empty ones), and members with every optional header field, read back
// whole and at random offsets as the plain bytes, walked at the default
// span and at a small one (a checkpoint at every block's end), and again
// through the table the walk made; a file's checkpoints are each
// member's start and block ends at least a span apart, and its splits
// are checkpoints.
func TestGzip(t *testing.T) {
	data := csvText(30000, 31)
	half := len(data) / 2
	members := `head -c ` + strconv.Itoa(half) + ` "$IN" | gzip -n -c > "$OUT" && gzip -c < /dev/null >> "$OUT" && ` +
		`tail -c +` + strconv.Itoa(half+1) + ` "$IN" | gzip -n -c >> "$OUT"`
	for _, c := range []struct {
		name  string
		data  []byte
		path  func(t *testing.T, data []byte) string
		span  int64
		spans int // at least
	}{
		{"Gzip1", data, func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", `gzip -1 -c "$IN" > "$OUT"`) }, 0, 4},
		{"Gzip9", data, func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", `gzip -9 -c "$IN" > "$OUT"`) }, 0, 4},
		{"Pigz", data, func(t *testing.T, d []byte) string { return gzipFile(t, d, "pigz", `pigz -p 2 -c "$IN" > "$OUT"`) }, 0, 4},
		{"Members", data, func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", members) }, 0, 4},
		{"EmptyFirst", data, func(t *testing.T, d []byte) string {
			return gzipFile(t, d, "gzip", `gzip -c < /dev/null > "$OUT" && gzip -c "$IN" >> "$OUT" && gzip -c < /dev/null >> "$OUT"`)
		}, 0, 4},
		{"SmallSpan", data, func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", `gzip -6 -c "$IN" > "$OUT"`) }, 1 << 10, 50},
		{"PigzSmallSpan", data, func(t *testing.T, d []byte) string {
			return gzipFile(t, d, "pigz", `pigz -p 2 -b 128 -c "$IN" > "$OUT"`)
		}, 1 << 10, 30},
		{"MembersSmallSpan", data, func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", members) }, 1 << 10, 50},
		{"Tiny", []byte("a,b\n1,2\n"), func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", `gzip -c "$IN" > "$OUT"`) }, 0, 1},
		{"OneByteSpans", data[:5000], func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", `gzip -c "$IN" > "$OUT"`) }, 1, 1},
		{"HeaderFields", data, func(t *testing.T, d []byte) string {
			n := len(d) / 3
			return writeFile(t, "a.gz", slices.Concat(gzipMember(t, d[:n], 6, gzipExtra|gzipName|gzipComment|gzipHCRC),
				gzipMember(t, d[n:2*n], 6, gzipHCRC), gzipMember(t, d[2*n:], 6, gzipName)))
		}, 1 << 16, 30},
		{"Stored", data, func(t *testing.T, d []byte) string {
			return writeFile(t, "a.gz", gzipMember(t, d, flate.NoCompression, 0))
		}, 1 << 16, 30},
		// One block of all the plain bytes: a span larger than asked.
		{"OneBlock", data, func(t *testing.T, d []byte) string {
			return writeFile(t, "a.gz", gzipMember(t, d, flate.HuffmanOnly, 0))
		}, 1 << 16, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.path(t, c.data)
			g, err := OpenGzip(p, nil, c.span)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			cps := g.Checkpoints()
			if g.Size() != int64(len(c.data)) || len(cps)-1 < c.spans {
				t.Fatalf("Size %d (want %d), %d spans (want %d at least)", g.Size(), len(c.data), len(cps)-1, c.spans)
			}
			if st, _ := os.Stat(p); cps[len(cps)-1].Bit != st.Size()*8 {
				t.Fatalf("the end at bit %d, the file of %d bytes", cps[len(cps)-1].Bit, st.Size())
			}
			span := c.span
			if span == 0 {
				span = DefaultSpan
			}
			for i, cp := range cps[1 : len(cps)-1] {
				if len(cp.Window) > 0 && cp.Plain < cps[i].Plain+span {
					t.Fatalf("checkpoint %d at %d, %d after the one before, less than the span %d", i+1, cp.Plain, cp.Plain-cps[i].Plain, span)
				}
			}
			checkReads(t, g, c.data, 300, 3*int(span))
			for _, cut := range g.Splits(span * 4) {
				if _, start, _ := g.spanAt(cut); start != cut {
					t.Fatalf("split %d is not a checkpoint", cut)
				}
			}

			tabled, err := OpenGzip(p, g.Table(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer tabled.Close()
			if !slices.EqualFunc(tabled.Checkpoints(), cps, equalCheckpoints) {
				t.Fatal("the checkpoints through the table differ from the walk's")
			}
			checkReads(t, tabled, c.data, 300, 3*int(span))
		})
	}
}

// equalCheckpoints reports whether a and b are the same checkpoint.
func equalCheckpoints(a, b Checkpoint) bool {
	return a.Bit == b.Bit && a.Plain == b.Plain && a.Sum == b.Sum && bytes.Equal(a.Window, b.Window)
}

// TestGzipEmpty: a gzip file of no plain bytes (gzip of an empty file, or
// of empty members) is a source of size 0 whose reads are io.EOF; an empty
// file is not gzip.
func TestGzipEmpty(t *testing.T) {
	p := gzipFile(t, nil, "gzip", `gzip -c "$IN" > "$OUT" && gzip -c "$IN" >> "$OUT"`)
	g, err := OpenGzip(p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if n, err := g.ReadAt(context.Background(), make([]byte, 1), 0); g.Size() != 0 || n != 0 || err != io.EOF || len(g.Checkpoints()) != 1 {
		t.Fatalf("Size %d, %d checkpoints, ReadAt = %d, %v", g.Size(), len(g.Checkpoints()), n, err)
	}
	if s, err := OpenGzip(p, g.Table(), 0); err != nil || s.Size() != 0 {
		t.Fatalf("through its table: %v", err)
	}
	var ce *CorruptError
	if _, err := OpenGzip(writeFile(t, "empty.gz", nil), nil, 0); !errors.As(err, &ce) {
		t.Fatalf("an empty file: %v, want a *CorruptError", err)
	}
}

// TestGzipGrown: through its table, a file that has grown since (a member
// appended) reads as it was: Size is the table's.
func TestGzipGrown(t *testing.T) {
	data := csvText(3000, 32)
	p := gzipFile(t, data, "gzip", `gzip -c "$IN" > "$OUT"`)
	g, err := OpenGzip(p, nil, 1<<14)
	if err != nil {
		t.Fatal(err)
	}
	table := g.Table()
	g.Close()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(gzipMember(t, []byte("more,rows\n"), 6, 0))
	f.Close()
	s, err := OpenGzip(p, table, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Size() != int64(len(data)) {
		t.Fatalf("Size = %d, want the table's %d", s.Size(), len(data))
	}
	checkReads(t, s, data, 100, 50000)
}

// TestGzipExtend: a gzip file with members appended (gzip -c more >> f),
// opened through the table of what it was (ExtendGzip, and
// source.OpenExtended), has the very table a walk of the whole file makes,
// and reads as the plain bytes (through that table too: source.OpenTable),
// without inflating the old part (a damaged member there goes unseen); appended bytes that do not start a member,
// and a file shorter than its table, are *CorruptErrors.
func TestGzipExtend(t *testing.T) {
	a, b := csvText(8000, 33), csvText(6000, 34)
	first, err := os.ReadFile(gzipFile(t, a, "gzip", `gzip -n -c "$IN" > "$OUT"`))
	if err != nil {
		t.Fatal(err)
	}
	more, err := os.ReadFile(gzipFile(t, b, "pigz", `pigz -n -p 2 -c "$IN" > "$OUT" && gzip -c < /dev/null >> "$OUT"`))
	if err != nil {
		t.Fatal(err)
	}
	for _, span := range []int64{1 << 12, DefaultSpan} {
		t.Run(strconv.FormatInt(span, 10), func(t *testing.T) {
			p := writeFile(t, "a.gz", first)
			old, err := OpenGzip(p, nil, span)
			if err != nil {
				t.Fatal(err)
			}
			table := old.Table()
			old.Close()

			if err := os.WriteFile(p, slices.Concat(first, more), 0o644); err != nil {
				t.Fatal(err)
			}
			walked, err := OpenGzip(p, nil, span)
			if err != nil {
				t.Fatal(err)
			}
			defer walked.Close()
			s, err := ExtendGzip(p, table)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(s.Table(), walked.Table()) {
				t.Errorf("the extended table (%d bytes) is not the walk's (%d bytes)", len(s.Table()), len(walked.Table()))
			}
			checkCut(t, walked, table, int64(len(a)), int64(len(first)), slices.Concat(first, more))
			checkReads(t, s, slices.Concat(a, b), 200, 100000)
			s.Close()
			if span == DefaultSpan { // the registered backend's
				ext, err := source.OpenExtended(p, "gzip", table)
				if err != nil || !bytes.Equal(ext.(*Gzip).Table(), walked.Table()) {
					t.Fatalf("source.OpenExtended: %v, or not the walk's table", err)
				}
				ext.Close()
				tabled, err := source.OpenTable(p, "gzip", walked.Table())
				if err != nil {
					t.Fatal(err)
				}
				checkReads(t, tabled, slices.Concat(a, b), 100, 100000)
				tabled.Close()
			}

			damaged := slices.Concat(first, more)
			damaged[len(first)/2] ^= 0x10
			if err := os.WriteFile(p, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenGzip(p, nil, span); err == nil {
				t.Fatal("a walk of a damaged file succeeds")
			}
			s, err = ExtendGzip(p, table)
			if err != nil {
				t.Fatalf("extending past a damaged member: %v", err)
			}
			if !bytes.Equal(s.Table(), walked.Table()) {
				t.Errorf("the table extended past a damaged member is not the walk's")
			}
			s.Close()

			var ce *CorruptError
			for _, c := range []struct {
				name string
				file []byte
				at   int64
			}{
				{"Plain", slices.Concat(first, []byte("id,user,comment\n1,2,3\n")), int64(len(first))},
				{"Rewritten", slices.Concat(first[:len(first)-20], more), int64(len(first))},
				{"MidMember", slices.Concat(first, more[100:]), int64(len(first))},
				{"Shorter", first[:len(first)-10], int64(len(first)) - 10},
			} {
				if err := os.WriteFile(p, c.file, 0o644); err != nil {
					t.Fatal(err)
				}
				if s, err := ExtendGzip(p, table); !errors.As(err, &ce) || ce.Offset > c.at {
					t.Errorf("%s: %v, %v; want a *CorruptError at %d at most", c.name, s, err, c.at)
				}
			}
		})
	}
}

// checkCut fails unless g, a walk of the file whose bytes are file, of
// which the first covered held the plain bytes up to plain and had the
// table prefix, says so: Covered and FileAt give the file, Cut(plain,
// covered) gives prefix, Cut(Size, Covered) the whole table, and Cut
// refuses a plain offset that ends no member and a covered size outside
// the bytes between that member's last checkpoint and the next member.
func checkCut(t *testing.T, g *Gzip, prefix []byte, plain, covered int64, file []byte) {
	t.Helper()
	if g.Covered() != int64(len(file)) {
		t.Errorf("Covered() = %d, want %d", g.Covered(), len(file))
	}
	head := make([]byte, 100)
	if n, err := g.FileAt(head, 0); n != len(head) || err != nil || !bytes.Equal(head, file[:len(head)]) {
		t.Errorf("FileAt: %d, %v", n, err)
	}
	if got, ok := g.Cut(plain, covered); !ok || !bytes.Equal(got, prefix) {
		t.Errorf("Cut(%d, %d) = %d bytes, %v; want the prefix's table", plain, covered, len(got), ok)
	}
	if got, ok := g.Cut(g.Size(), g.Covered()); !ok || !bytes.Equal(got, g.Table()) {
		t.Errorf("Cut(Size, Covered) = %d bytes, %v; want the table", len(got), ok)
	}
	cps := g.Checkpoints()
	i := slices.IndexFunc(cps, func(c Checkpoint) bool { return c.Plain == plain })
	if _, ok := g.Cut(plain, covered+1); ok {
		t.Errorf("Cut with covered past the next member's start")
	}
	if _, ok := g.Cut(plain, (cps[i-1].Bit+7)/8-1); ok {
		t.Errorf("Cut with covered before the last checkpoint")
	}
	if mid := slices.IndexFunc(cps, func(c Checkpoint) bool { return len(c.Window) > 0 }); mid >= 0 {
		if _, ok := g.Cut(cps[mid].Plain, (cps[mid].Bit+7)/8); ok {
			t.Errorf("Cut at a checkpoint inside a member")
		}
	}
	if _, ok := g.Cut(plain-1, covered); ok {
		t.Errorf("Cut where no checkpoint is")
	}
}

// TestGzipDamage: a flipped bit anywhere in a member's deflate data or
// trailer makes the walk a *CorruptError; read through the table of the
// good file, every read gives the right bytes or a *CorruptError, and a
// read of the span the bit is in is one. A truncated file, trailing
// garbage, and bad headers are *CorruptErrors when walked.
func TestGzipDamage(t *testing.T) {
	data := csvText(20000, 35)
	p := gzipFile(t, data, "gzip", `gzip -n -c "$IN" > "$OUT"`)
	comp, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const span = 1 << 16
	good, err := OpenGzip(p, nil, span)
	if err != nil {
		t.Fatal(err)
	}
	table, cps := good.Table(), good.Checkpoints()
	good.Close()
	dir := t.TempDir()
	var ce *CorruptError
	r := rand.New(rand.NewPCG(35, 1))
	for range 12 {
		at := 10 + r.Int64N(int64(len(comp))-10) // past the fixed header (MTIME, OS are not checked)
		bad := bytes.Clone(comp)
		bad[at] ^= 1 << r.IntN(8)
		bp := filepath.Join(dir, "bad.gz")
		os.WriteFile(bp, bad, 0o644)
		if _, err := OpenGzip(bp, nil, span); !errors.As(err, &ce) {
			t.Errorf("walking with byte %d flipped: %v, want a *CorruptError", at, err)
		}
		s, err := OpenGzip(bp, table, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range len(cps) - 1 {
			p := make([]byte, cps[i+1].Plain-cps[i].Plain)
			n, err := s.ReadAt(context.Background(), p, cps[i].Plain)
			inSpan := at >= cps[i].Bit/8 && at < (cps[i+1].Bit+7)/8 && (i < len(cps)-2 || at < int64(len(comp))-8)
			switch {
			case err != nil && !errors.As(err, &ce):
				t.Errorf("byte %d flipped, span %d: %v", at, i, err)
			case err == nil && !bytes.Equal(p, data[cps[i].Plain:cps[i+1].Plain]):
				t.Errorf("byte %d flipped, span %d: wrong bytes", at, i)
			case err == nil && inSpan:
				t.Errorf("byte %d flipped, in span %d: the span reads", at, i)
			case n != 0 && err != nil:
				t.Errorf("byte %d flipped, span %d: %d bytes and an error", at, i, n)
			}
		}
		s.Close()
	}

	for _, c := range []struct {
		name string
		file []byte
		why  string
	}{
		{"Truncated", comp[:len(comp)/2], "ends inside"},
		{"NoTrailer", comp[:len(comp)-8], "ends inside"},
		{"HalfTrailer", comp[:len(comp)-3], "ends inside"},
		{"HalfHeader", comp[:5], "ends inside"},
		{"TrailingGarbage", slices.Concat(comp, []byte("garbage\n")), "trailing garbage"},
		{"TrailingZeros", slices.Concat(comp, make([]byte, 512)), "trailing garbage"},
		{"TrailingByte", slices.Concat(comp, []byte{0x1f}), "ends inside"},
		{"Method", slices.Concat(comp[:2], []byte{7}, comp[3:]), "compression method"},
		{"Reserved", slices.Concat(comp[:3], []byte{comp[3] | 0x20}, comp[4:]), "reserved"},
		{"HeaderCRC", slices.Concat(gzipMember(t, data[:100], 6, gzipHCRC|gzipName)[:10], []byte("b.csv\x00\x00\x00"), comp[10:]), "CRC-16"},
		{"Size", slices.Concat(comp[:len(comp)-4], []byte{1, 2, 3, 4}), "size"},
	} {
		if _, err := OpenGzip(writeFile(t, "bad.gz", c.file), nil, span); !errors.As(err, &ce) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want a *CorruptError that says %q", c.name, err, c.why)
		}
	}

	// Through the table, a truncated file fails where it ends.
	s, err := OpenGzip(writeFile(t, "cut.gz", comp[:len(comp)/2]), table, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buf := make([]byte, len(data))
	if n, err := s.ReadAt(context.Background(), buf, 0); !errors.As(err, &ce) || !bytes.Equal(buf[:n], data[:n]) {
		t.Errorf("reading a truncated file through its table: %d, %v", n, err)
	}
}

// TestGzipReplaced: read through the table of another file of the same
// size (the CSV changed in a digit, compressed again by gzip, or in stored
// blocks, which inflate to the other bytes without an error), every span
// gives the old bytes or a *CorruptError, and the span that changed is
// one.
func TestGzipReplaced(t *testing.T) {
	data := csvText(20000, 36)
	cmd := `gzip -n -c "$IN" > "$OUT"`
	for _, c := range []struct {
		name string
		comp func(t *testing.T, data []byte) string
	}{
		{"Gzip", func(t *testing.T, d []byte) string { return gzipFile(t, d, "gzip", cmd) }},
		{"Stored", func(t *testing.T, d []byte) string {
			return writeFile(t, "a.gz", gzipMember(t, d, flate.NoCompression, 0))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.comp(t, data)
			g, err := OpenGzip(p, nil, 1<<16)
			if err != nil {
				t.Fatal(err)
			}
			table, cps := g.Table(), g.Checkpoints()
			g.Close()
			var other string
			var changed int
			for at := len(data) / 3; at < len(data) && other == ""; at++ {
				if data[at] < '0' || data[at] > '8' {
					continue
				}
				d := bytes.Clone(data)
				d[at]++
				if q := c.comp(t, d); fileSize(q) == fileSize(p) {
					other, changed = q, at
				}
			}
			if other == "" {
				t.Fatal("no changed digit compresses to the same size")
			}
			s, err := OpenGzip(other, table, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var ce *CorruptError
			for i := range len(cps) - 1 {
				p := make([]byte, cps[i+1].Plain-cps[i].Plain)
				_, err := s.ReadAt(context.Background(), p, cps[i].Plain)
				switch {
				case err != nil && !errors.As(err, &ce):
					t.Errorf("span %d: %v", i, err)
				case err == nil && !bytes.Equal(p, data[cps[i].Plain:cps[i+1].Plain]):
					t.Errorf("span %d: other bytes", i)
				case err == nil && int64(changed) >= cps[i].Plain && int64(changed) < cps[i+1].Plain:
					t.Errorf("span %d, which holds the changed byte %d, reads", i, changed)
				}
			}
		})
	}
}

// fileSize returns the size of the file at p, or -1.
func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return st.Size()
}

// TestGzipLargeSpan: a block longer than maxFrame (one deflate block of
// repeated bytes, as zlib writes them) makes a span too large to inflate
// whole: a *FrameError when walked, and through a table.
func TestGzipLargeSpan(t *testing.T) {
	defer func(old int64) { maxFrame = old }(maxFrame)
	data := bytes.Repeat([]byte("a,b\n"), 1<<20)
	p := gzipFile(t, data, "gzip", `gzip -c "$IN" > "$OUT"`)
	g, err := OpenGzip(p, nil, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	table := g.Table()
	longest := int64(0)
	for i, cp := range g.Checkpoints()[1:] {
		longest = max(longest, cp.Plain-g.Checkpoints()[i].Plain)
	}
	g.Close()
	maxFrame = longest - 1
	var fe *FrameError
	if _, err := OpenGzip(p, nil, 1<<10); !errors.As(err, &fe) {
		t.Errorf("walked with spans up to %d bytes and maxFrame %d: %v, want a *FrameError", longest, maxFrame, err)
	}
	if _, err := OpenGzip(p, table, 0); !errors.As(err, &fe) || fe.Plain != longest {
		t.Errorf("through a table with spans up to %d bytes and maxFrame %d: %v, want a *FrameError", longest, maxFrame, err)
	}
}

// TestGzipConcurrent: readers on several goroutines, whose reads share
// spans and evict them from the cache, each get the plain bytes (go test
// -race checks the sharing); Prefetch leaves the spans asked for in the
// cache.
func TestGzipConcurrent(t *testing.T) {
	data := csvText(30000, 37)
	p := gzipFile(t, data, "gzip", `gzip -c "$IN" > "$OUT"`)
	g, err := OpenGzip(p, nil, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.Prefetch([]int64{0, 100, 300000, int64(len(data)) - 1, -5, int64(len(data))})
	for _, off := range []int64{0, 300000, int64(len(data)) - 1} {
		i, _, _ := g.spanAt(off)
		kept := false
		for j, id := range g.cache.ids {
			kept = kept || id == i && g.cache.bufs[j] != nil
		}
		if !kept {
			t.Errorf("Prefetch left span %d (offset %d) out of the cache", i, off)
		}
	}
	readConcurrently(t, g, data, 37)
}
