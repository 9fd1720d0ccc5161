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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source/compressed"
)

// The damage tests: the index of a compressed CSV, built on the good file,
// then the file damaged on disk in each way a disk, a copy or a person
// damages one, and every key looked up. Each lookup must print the key's
// rows exactly, or fail with an error csvidx documents (stale, corrupt,
// changed, a damaged frame); never a wrong row, a panic or a hang; and
// verify must not call a damaged file's index good.

// A damageCodec makes compressed files of one kind: by the real tool, or
// by compressed.Compress as csvidx compress does.
type damageCodec struct {
	name     string
	backend  string // "bgzf" or "zstd"
	compress func(t *testing.T, plain []byte) []byte
}

// damageCodecs are bgzip's and pzstd's files and csvidx compress's, in
// zstd frames of 8 KiB (rows straddle them) and in BGZF members.
var damageCodecs = []damageCodec{
	{"Bgzip", "bgzf", toolCodec("bgzip", `bgzip -c "$IN" > "$OUT"`)},
	{"Pzstd", "zstd", toolCodec("pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`)},
	{"CompressZstd8K", "zstd", compressCodec(compressed.CompressOptions{FrameBytes: 8 << 10, Threads: 2})},
	{"CompressBGZF", "bgzf", compressCodec(compressed.CompressOptions{Format: "bgzf", Threads: 2})},
}

// toolCodec compresses with the shell script cmd, which runs tool (see
// tooltest.Compress).
func toolCodec(tool, cmd string) func(*testing.T, []byte) []byte {
	return func(t *testing.T, plain []byte) []byte {
		t.Helper()
		b, err := os.ReadFile(tooltest.Compress(t, plain, tool, cmd, "c"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// compressCodec compresses with compressed.Compress and o.
func compressCodec(o compressed.CompressOptions) func(*testing.T, []byte) []byte {
	return func(t *testing.T, plain []byte) []byte {
		t.Helper()
		var b bytes.Buffer
		if _, err := compressed.Compress(context.Background(), &b, bytes.NewReader(plain), o); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
}

// frames returns where the frames of the compressed bytes comp start, and
// its size last (see compressed.ScanBGZF).
func frames(t *testing.T, backend string, comp []byte) []compressed.Block {
	t.Helper()
	scan := compressed.ScanZstd
	if backend == "bgzf" {
		scan = compressed.ScanBGZF
	}
	blocks, err := scan(bytes.NewReader(comp), int64(len(comp)), "comp")
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// damageCSV returns a CSV of n rows keyed by their second column, whose
// keys are spread over n/20 values and the nasty keys, each row somewhere
// in the file, with fields in every encoding (quoted, escaped, across
// lines, text after the closing quote) and either terminator: a damaged
// frame holds rows of some keys, and leaves the others to answer.
func damageCSV(r *rand.Rand, n int) genCSV {
	g := genCSV{keyCol: 1, delim: ',', header: "id,key,note\n"}
	var b strings.Builder
	b.WriteString(g.header)
	notes := []string{"x", "", "1,2", `say "hi"`, "two\nlines", "crlf\r\nin quotes"}
	for i := range n {
		key := "k" + strconv.Itoa(r.IntN(max(1, n/20)))
		if r.IntN(20) == 0 {
			key = nastyKeys[r.IntN(len(nastyKeys))]
		}
		note := notes[r.IntN(len(notes))] + strconv.FormatUint(r.Uint64()>>r.IntN(64), 36)
		text := encodeField(r, strconv.Itoa(i), ',') + "," + encodeField(r, key, ',') + "," + encodeField(r, note, ',') + []string{"\n", "\r\n"}[r.IntN(2)]
		g.rows = append(g.rows, genRow{key: key, hasKey: true, text: text, off: b.Len()})
		b.WriteString(text)
	}
	g.data = b.String()
	return g
}

// An oracle is what every lookup of a generated CSV must print: each
// key's rows and count, its keys in order of first appearance.
type oracle struct {
	keys  []string
	rows  map[string]string
	count map[string]int64
}

func oracleOf(g genCSV) oracle {
	o := oracle{rows: map[string]string{}, count: map[string]int64{}}
	for _, row := range g.rows {
		if !row.hasKey {
			continue
		}
		if _, ok := o.rows[row.key]; !ok {
			o.keys = append(o.keys, row.key)
		}
		text := row.text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		o.rows[row.key] += text
		o.count[row.key]++
	}
	o.keys = append(o.keys, "absent key", "k-1")
	return o
}

// documented reports whether err is one of the errors a lookup or verify
// of a changed or damaged compressed file may end with: the index is
// stale (the file changed size or ends, or a row is not the one indexed),
// corrupt, the file changed while read, or a frame does not decode.
func documented(err error) bool {
	var ce *compressed.CorruptError
	return errors.Is(err, ErrStale) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrChanged) || errors.As(err, &ce)
}

// damageOutcome is what the lookups of every key of a damaged file did.
type damageOutcome struct {
	refused       bool // Open failed
	right, failed int  // lookups that printed the right rows, or failed
	verifyFailed  bool // verify found differences or failed
}

// lookupAll opens the index of the compressed CSV comp and looks up every
// key of o alone (Get and Count) and all at once; it fails the test on a
// wrong row, a wrong count or an error csvidx does not document, and on a
// hang (a minute). Another, other, is the oracle of the file's content
// now, if it is valid data that differs from the indexed one's: its rows
// are right too.
func lookupAll(t *testing.T, comp string, o oracle, other *oracle) damageOutcome {
	t.Helper()
	done := make(chan struct{})
	var out damageOutcome
	var bad error
	go func() {
		defer close(done)
		out, bad = lookupAllErr(comp, o, other)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the lookups in %s still run after a minute: a hang", comp)
	}
	if bad != nil {
		t.Fatal(bad)
	}
	return out
}

// lookupAllErr is lookupAll's work: an error says what went wrong.
func lookupAllErr(comp string, o oracle, other *oracle) (out damageOutcome, bad error) {
	right := func(k, got string) bool {
		return got == o.rows[k] || other != nil && got == other.rows[k]
	}
	if _, err := ReadInfo(comp, nil); err != nil && !documented(err) {
		return out, fmt.Errorf("ReadInfo: %v: not an error csvidx documents", err)
	}
	ix, err := Open(comp, nil)
	if err != nil {
		if !documented(err) {
			return out, fmt.Errorf("Open: %v: not an error csvidx documents", err)
		}
		out.refused = true
	} else {
		defer ix.Close()
		for i, k := range o.keys {
			var b bytes.Buffer
			err := ix.Get([][]byte{[]byte(k)}, func(row []byte) error { b.Write(row); return nil })
			switch {
			case err != nil && !documented(err):
				return out, fmt.Errorf("Get(%q): %v: not an error csvidx documents", k, err)
			case err != nil:
				out.failed++
			case !right(k, b.String()):
				return out, fmt.Errorf("Get(%q) printed %q, want %q", k, b.String(), o.rows[k])
			default:
				out.right++
			}
			if i%8 != 0 {
				continue
			}
			n, err := ix.Count([]byte(k))
			switch {
			case err != nil && !documented(err):
				return out, fmt.Errorf("Count(%q): %v: not an error csvidx documents", k, err)
			case err == nil && n != o.count[k] && (other == nil || n != other.count[k]):
				return out, fmt.Errorf("Count(%q) = %d, want %d", k, n, o.count[k])
			}
		}
		all := make([][]byte, len(o.keys))
		for i, k := range o.keys {
			all[i] = []byte(k)
		}
		var b bytes.Buffer
		err := ix.Get(all, func(row []byte) error { b.Write(row); return nil })
		if err != nil && !documented(err) {
			return out, fmt.Errorf("Get of every key: %v: not an error csvidx documents", err)
		}
		if err == nil && out.failed > 0 {
			return out, fmt.Errorf("Get of every key answered, where %d keys alone failed", out.failed)
		}
	}
	res, err := Verify(context.Background(), comp, nil)
	switch {
	case err != nil && !documented(err):
		return out, fmt.Errorf("Verify: %v: not an error csvidx documents", err)
	case err != nil || !res.Equal:
		out.verifyFailed = true
	}
	return out, nil
}

// TestCompressedDamage: for BGZF and zstd files by bgzip, pzstd and
// csvidx compress, the index built, then the file damaged: a byte flipped
// at the start, in the middle and at the end of a frame in the middle of
// the file; the file cut at a frame's start, inside a frame, by its last
// byte; replaced by another compressed file of the same size (two rows of
// the same length swapped, recompressed) and by another of another size;
// a frame appended; replaced by the plain CSV, and by the CSV in the other
// format. Every lookup of every key prints the right rows or fails with a
// documented error, verify fails, and each damage fails at least one
// lookup (or the open); a change that keeps the file's size and ends is
// found by the lookups that read it, not at open. Put back, the file
// answers every lookup again.
func TestCompressedDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 44))
	g := damageCSV(r, 18000)
	o := oracleOf(g)
	for _, c := range damageCodecs {
		t.Run(c.name, func(t *testing.T) {
			good := c.compress(t, []byte(g.data))
			blocks := frames(t, c.backend, good)
			comp := filepath.Join(t.TempDir(), "d.csv.z")
			write := func(b []byte) {
				t.Helper()
				if err := os.WriteFile(comp, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(good)
			build(t, comp, &BuildOptions{Key: "key", Resources: Resources{Threads: 2}})
			if out := lookupAll(t, comp, o, nil); out.failed > 0 || out.refused || out.verifyFailed {
				t.Fatalf("the good file: %+v", out)
			}
			// The frame that holds the file's middle byte; in a file of
			// small frames (all but pzstd's one), outside the ends that
			// an open checks.
			mid := len(blocks) - 2
			for mid > 0 && blocks[mid].Comp > int64(len(good)/2) {
				mid--
			}
			start, end := blocks[mid].Comp, blocks[mid+1].Comp
			if len(blocks) > 8 && (start < format.EndHashLen || end > int64(len(good)-format.EndHashLen)) {
				t.Fatalf("the middle frame [%d, %d) of %d bytes is not outside the ends", start, end, len(good))
			}
			extra := c.compress(t, []byte("40000,k1,appended\n"))
			swapped, swappedComp := sameSizeSwap(t, g, c, len(good))
			cases := []struct {
				name  string
				bytes []byte
				other *oracle // the oracle of the content now, if valid and not the indexed one
			}{
				{"FlipFrameStart", flip(good, start), nil},
				{"FlipFrameMiddle", flip(good, (start+end)/2), nil},
				{"FlipFrameEnd", flip(good, end-1), nil},
				{"CutAtFrame", good[:start], nil},
				{"CutInFrame", good[:(start+end)/2], nil},
				{"CutLastByte", good[:len(good)-1], nil},
				{"ReplacedSameSize", swappedComp, &swapped},
				{"ReplacedOther", extra, nil},
				{"ReplacedByPlain", []byte(g.data), nil},
				{"ReplacedByOtherFormat", otherFormat(t, c, g), nil},
			}
			for _, d := range cases {
				if d.bytes == nil {
					t.Logf("%s: no file of the same size found: not tried", d.name)
					continue
				}
				write(d.bytes)
				out := lookupAll(t, comp, o, d.other)
				if !out.verifyFailed {
					t.Errorf("%s: verify found the index good", d.name)
				}
				if !out.refused && out.failed == 0 {
					t.Errorf("%s: every lookup answered: %+v", d.name, out)
				}
				// A change that keeps the file's size and ends is not seen
				// at open: the lookups that read it must see it.
				if out.refused && len(d.bytes) == len(good) && sameEnds(d.bytes, good) {
					t.Errorf("%s: the file's size and ends are the same, yet the index was refused at open", d.name)
				}
				t.Logf("%s: %+v", d.name, out)
			}
			// Frames appended are not damage: the index is behind, and
			// answers every key from what it covers.
			write(append(bytes.Clone(good), extra...))
			if out := lookupAll(t, comp, o, nil); out.failed > 0 || out.refused || out.verifyFailed {
				t.Fatalf("frames appended: %+v", out)
			}
			write(good)
			if out := lookupAll(t, comp, o, nil); out.failed > 0 || out.refused || out.verifyFailed {
				t.Fatalf("the good file put back: %+v", out)
			}
		})
	}
}

// sameEnds reports whether the files a and b have the same first and
// last format.EndHashLen bytes, which an index of a compressed file
// checks at open.
func sameEnds(a, b []byte) bool {
	n := min(len(a), len(b), format.EndHashLen)
	return bytes.Equal(a[:n], b[:n]) && bytes.Equal(a[len(a)-n:], b[len(b)-n:])
}

// otherFormat returns g compressed in the format c does not write.
func otherFormat(t *testing.T, c damageCodec, g genCSV) []byte {
	o := compressed.CompressOptions{Format: "bgzf"}
	if c.backend == "bgzf" {
		o.Format = "zstd"
	}
	return compressCodec(o)(t, []byte(g.data))
}

// flip returns b with the byte at off flipped.
func flip(b []byte, off int64) []byte {
	b = bytes.Clone(b)
	b[off] ^= 0x5a
	return b
}

// sameSizeSwap returns the oracle of g with two of its rows near its
// middle swapped, rows of the same length and terminator, of different
// keys, a few rows apart (in one frame, or two next to each other), and
// that CSV compressed by c to size bytes, like g's; nil bytes when none of
// the pairs tried compresses to that size.
func sameSizeSwap(t *testing.T, g genCSV, c damageCodec, size int) (oracle, []byte) {
	t.Helper()
	tries := 0
	for i := len(g.rows) / 2; i < len(g.rows) && tries < 40; i++ {
		b := g.rows[i]
		for j := i - 1; j > i-30; j-- {
			a := g.rows[j]
			if len(a.text) != len(b.text) || a.key == b.key || strings.HasSuffix(a.text, "\r\n") != strings.HasSuffix(b.text, "\r\n") {
				continue
			}
			tries++
			s := g
			s.rows = slices.Clone(g.rows)
			s.rows[j].text, s.rows[j].key = b.text, b.key
			s.rows[i].text, s.rows[i].key = a.text, a.key
			s.data = g.data[:a.off] + b.text + g.data[a.off+len(a.text):b.off] + a.text + g.data[b.off+len(b.text):]
			if comp := c.compress(t, []byte(s.data)); len(comp) == size {
				return oracleOf(s), comp
			}
			break
		}
	}
	return oracle{}, nil
}
