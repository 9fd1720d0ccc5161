package format

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/sorter"
)

// TestRecordPos: record i is at slot i%255 of record page i/255, file page
// 1+i/255, as the essay lays format 1 out; no record reaches a page's
// trailer.
func TestRecordPos(t *testing.T) {
	for _, c := range []struct{ i, want uint64 }{
		{0, 4096},
		{1, 4096 + 16},
		{254, 4096 + 16*254},
		{255, 2 * 4096},
		{256, 2*4096 + 16},
		{509, 2*4096 + 16*254},
		{510, 3 * 4096},
		{255*1000 + 7, 1001*4096 + 16*7},
		{1 << 32, 16843010*4096 + 16}, // 2^32 = 255·16843009 + 1
	} {
		if got := RecordPos(c.i); got != c.want {
			t.Errorf("RecordPos(%d) = %d, want %d", c.i, got, c.want)
		}
	}
	for i := range uint64(3 * RecordsPerPage) {
		pos := RecordPos(i)
		if pos/PageSize != 1+i/RecordsPerPage || pos%PageSize != RecordSize*(i%RecordsPerPage) || pos%PageSize+RecordSize > PageNoOffset {
			t.Fatalf("record %d at %d: page %d, slot offset %d", i, pos, pos/PageSize, pos%PageSize)
		}
	}
}

// TestRecordPages: n records take ceil(n/255) record pages, in
// recordPages, in the header a PageWriter writes, which DecodeHeader
// accepts only with that count, and in the file's length; every page's
// trailer holds its number and count, and its padding is zero.
func TestRecordPages(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 10))
	for _, c := range []struct{ n, pages uint64 }{
		{0, 0}, {1, 1}, {254, 1}, {255, 1}, {256, 2}, {510, 2}, {511, 3}, {1000, 4},
	} {
		if got := recordPages(c.n); got != c.pages {
			t.Errorf("recordPages(%d) = %d, want %d", c.n, got, c.pages)
		}
		hs := make([]uint64, c.n)
		for i := range hs {
			hs[i] = r.Uint64()
		}
		f := buildFlat(t, recordsOf(r, hs, 1<<40))
		if f.h.Pages != c.pages || uint64(len(f.data)) != PageSize*(1+c.pages) {
			t.Errorf("%d records: %d pages in the header, %d bytes; want %d pages", c.n, f.h.Pages, len(f.data), c.pages)
		}
		le := binary.LittleEndian
		for pg := range f.h.Pages {
			page := f.data[PageSize*(1+pg):][:PageSize]
			k := min(c.n-pg*RecordsPerPage, RecordsPerPage)
			if le.Uint64(page[PageNoOffset:]) != pg || uint64(le.Uint32(page[PageLenOffset:])) != k || !AllZero(page[RecordSize*k:PageNoOffset]) {
				t.Errorf("%d records: record page %d's trailer says page %d of %d records, want %d", c.n, pg, le.Uint64(page[PageNoOffset:]), le.Uint32(page[PageLenOffset:]), k)
			}
		}
		for _, pages := range []uint64{c.pages + 1, c.pages - 1} {
			h := *f.h
			h.Pages = pages
			if _, err := decodeOf(t, &h); err == nil {
				t.Errorf("%d records on %d pages decode", c.n, pages)
			}
		}
	}
}

// TestPageCRC: PageCRC is crcpage.Sum, the CRC-32 (IEEE) of a page's first
// 4092 bytes, whatever its last four hold, and what the writers store
// there.
func TestPageCRC(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 11))
	random := make([]byte, PageSize)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	pages := map[string][]byte{"zero": make([]byte, PageSize), "random": random}
	f := buildFlat(t, recordsOf(r, []uint64{1, 2, 3}, 100))
	pages["format 1 header"] = f.data[:PageSize]
	pages["format 1 record page"] = f.data[PageSize:]
	d := buildDense(t, recordsOf(r, []uint64{1, 2, 3}, 100), 32, 100)
	pages["format 2 header"] = d.data[:PageSize]
	pages["format 2 record page"] = d.data[PageSize:]
	for name, page := range pages {
		want := crc32.ChecksumIEEE(page[:CRCOffset])
		if got := PageCRC(page); got != want || got != crcpage.Sum(page) {
			t.Errorf("%s: PageCRC = %#x, crcpage.Sum = %#x, want %#x", name, got, crcpage.Sum(page), want)
		}
		if stored := binary.LittleEndian.Uint32(page[CRCOffset:]); strings.HasPrefix(name, "format") && stored != want {
			t.Errorf("%s: %#x stored, the page's CRC is %#x", name, stored, want)
		}
		other := slices.Clone(page)
		other[PageSize-1] ^= 0xff
		if PageCRC(other) != want {
			t.Errorf("%s: PageCRC depends on the CRC's own bytes", name)
		}
	}
}

// essay returns format.go's package comment as text, its comment markers
// removed and its runs of white space made one space.
func essay(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("format.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, ok := strings.Cut(string(src), "\npackage format")
	if !ok {
		t.Fatal("format.go has no package clause")
	}
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		b.WriteString(strings.TrimPrefix(line, "//"))
		b.WriteByte('\n')
	}
	return b.String()
}

// oneSpace makes every run of white space in s one space.
func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// find returns the submatches of re in text, or fails.
func find(t *testing.T, text, re string) []string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("format.go's essay does not say %q", re)
	}
	return m
}

// exampleRecords returns the records of the essay's example: its CSV, the
// key's name, and the CSV's rows parsed by a simple split (the example
// has no quotes), hashed as index hashes keys, sorted by (hash, offset).
func exampleRecords(t *testing.T, text string) ([]sorter.Record, uint64) {
	t.Helper()
	m := find(t, oneSpace(text), `For example, the CSV ("[^"]*") indexed on "(\w+)" has rows at offsets (\d+), (\d+) and (\d+)`)
	csv, err := strconv.Unquote(m[1])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(csv, "\n")
	col := slices.Index(strings.Split(strings.TrimSuffix(lines[0], "\n"), ","), m[2])
	if col < 0 {
		t.Fatalf("the example's CSV has no column %q", m[2])
	}
	var recs []sorter.Record
	off := len(lines[0])
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		key := strings.Split(strings.TrimSuffix(line, "\n"), ",")[col]
		recs = append(recs, sorter.Record{Hash: xxh3.Hash([]byte(key)), Offset: uint64(off)})
		off += len(line)
	}
	var offs []string
	for _, rc := range recs {
		offs = append(offs, strconv.FormatUint(rc.Offset, 10))
	}
	if !slices.Equal(offs, m[3:]) {
		t.Errorf("the example's rows are at %v, the essay says %v", offs, m[3:])
	}
	slices.SortFunc(recs, compareRecords)
	return recs, uint64(len(csv))
}

// TestEssayHashes: the XXH3-64 values the essay gives are those of the
// hash index uses for keys (internal/xxh3).
func TestEssayHashes(t *testing.T) {
	ms := regexp.MustCompile(`xxh3\("(\w+)"\) = (0x[0-9a-f]+)`).FindAllStringSubmatch(essay(t), -1)
	if len(ms) != 2 {
		t.Fatalf("the essay gives %d hashes, want 2", len(ms))
	}
	for _, m := range ms {
		want, err := strconv.ParseUint(m[2], 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := xxh3.Hash([]byte(m[1])); got != want {
			t.Errorf("xxh3(%q) = %#x, the essay says %s", m[1], got, m[2])
		}
	}
}

// TestEssayExampleFormat1: the essay's example CSV, written by a
// PageWriter, starts its one record page with the bytes the essay prints,
// read from format.go itself, each line the key and offset it is labelled
// with; the page's trailer says page 0 of 3 records.
func TestEssayExampleFormat1(t *testing.T) {
	text := essay(t)
	recs, _ := exampleRecords(t, text)
	_, dump, ok := strings.Cut(text, "its one record page starts with\n")
	if !ok {
		t.Fatal("the essay does not print the example's record page")
	}
	line := regexp.MustCompile(`^\s+((?:[0-9a-f]{2} ){8} (?:[0-9a-f]{2} ){7}[0-9a-f]{2})\s+(\w+) @ (\d+)$`)
	var want []byte
	for _, l := range strings.Split(dump, "\n") {
		if strings.TrimSpace(l) == "" {
			if want == nil {
				continue
			}
			break
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("the essay's line %q is not 16 hex bytes and a label", l)
		}
		b, err := hex.DecodeString(strings.ReplaceAll(m[1], " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		if h, off := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]); h != xxh3.Hash([]byte(m[2])) || strconv.FormatUint(off, 10) != m[3] {
			t.Errorf("the essay's line %q is %#x @ %d, not its label", l, h, off)
		}
		want = append(want, b...)
	}
	if len(want) != 48 {
		t.Fatalf("the essay prints %d bytes of the record page, want 48", len(want))
	}
	f := buildFlat(t, recs)
	page := f.data[PageSize:][:PageSize]
	if !bytes.Equal(page[:48], want) {
		t.Errorf("the record page starts with\n%s\nthe essay prints\n%s", hex.Dump(page[:48]), hex.Dump(want))
	}
	le := binary.LittleEndian
	if f.h.Pages != 1 || le.Uint64(page[PageNoOffset:]) != 0 || le.Uint32(page[PageLenOffset:]) != 3 || !AllZero(page[48:PageNoOffset]) {
		t.Errorf("%d record pages; trailer: page %d, %d records", f.h.Pages, le.Uint64(page[PageNoOffset:]), le.Uint32(page[PageLenOffset:]))
	}
}

// bitStream appends bits least significant first, as the essay's format 2
// streams are written.
type bitStream struct {
	b []byte
	n int
}

// put appends the low width bits of v.
func (s *bitStream) put(v uint64, width int) {
	for i := range width {
		if s.n%8 == 0 {
			s.b = append(s.b, 0)
		}
		s.b[s.n/8] |= byte(v>>uint(i)&1) << uint(s.n%8)
		s.n++
	}
}

// bits appends the bits of a string of 0s and 1s, in the order written.
func (s *bitStream) bits(str string) {
	for _, c := range str {
		s.put(uint64(c-'0'), 1)
	}
}

// TestEssayExampleFormat2: the essay's example, packed by a DensePacker
// as the pipeline packs a main index, has the F, W, page fields and stream
// the essay gives: its numbers are read from format.go, its stream built
// bit by bit from the essay's description of it.
func TestEssayExampleFormat2(t *testing.T) {
	text := essay(t)
	recs, size := exampleRecords(t, text)
	m := find(t, oneSpace(text), `The example above in format 2 \([^)]*\): F = (\d+), W = (\d+); one record page, first key (0x[0-9a-f]+) \(u2's fingerprint\), (\d+) rows, (\d+) runs, k = (\d+), (\d+) bits`)
	num := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	fpBits, width, first, rows, runs, k, nbits := num(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6]), num(m[7])
	f := buildDense(t, recs, FingerprintBits(uint64(len(recs))), size)
	if uint64(f.h.FPBits) != fpBits || uint64(f.h.OffBits) != width || f.h.Pages != 1 {
		t.Fatalf("F %d, W %d, %d record pages; the essay says F %d, W %d, one page", f.h.FPBits, f.h.OffBits, f.h.Pages, fpBits, width)
	}
	page := f.data[PageSize:][:PageSize]
	le := binary.LittleEndian
	for _, c := range []struct {
		field     string
		got, want uint64
	}{
		{"first key", le.Uint64(page), first},
		{"first key, u2's fingerprint", le.Uint64(page), xxh3.Hash([]byte("u2")) >> (64 - fpBits) << (64 - fpBits)},
		{"page number", uint64(le.Uint32(page[8:])), 0},
		{"rows", uint64(le.Uint32(page[12:])), rows},
		{"runs", uint64(le.Uint16(page[16:])), runs},
		{"Rice parameter", uint64(page[18]), k},
		{"flags", uint64(page[19]), 0},
		{"stream bits", uint64(le.Uint16(page[20:])), nbits},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d (%#x), the essay says %d (%#x)", c.field, c.got, c.got, c.want, c.want)
		}
	}
	// Run 0: c = 1, offset 13 in W bits. Run 1: the fingerprint gap less
	// one in Rice code (q = 0), c = 2 in gamma, the low L = 4 bits of 8 and
	// 18, then their high parts 0 and 1 as gaps in unary.
	u1, u2 := xxh3.Hash([]byte("u1"))>>(64-fpBits), xxh3.Hash([]byte("u2"))>>(64-fpBits)
	var s bitStream
	s.bits("1")
	s.put(13, int(width))
	s.bits("1")
	s.put(u1-u2-1, int(k))
	s.bits("010")
	s.put(8, 4)
	s.put(18, 4)
	s.bits("1")
	s.bits("01")
	if uint64(s.n) != nbits {
		t.Fatalf("the essay's stream takes %d bits, it says %d", s.n, nbits)
	}
	stream := page[denseStream:CRCOffset]
	if !bytes.Equal(stream[:len(s.b)], s.b) || !AllZero(stream[len(s.b):]) {
		t.Errorf("the stream is\n%s\nthe essay describes\n%s", hex.Dump(stream[:len(s.b)]), hex.Dump(s.b))
	}
}
