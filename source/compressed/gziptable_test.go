package compressed

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/klauspost/compress/flate"
)

// gzipTableOf returns the encoded table of a walk, at span, of a file of
// gzip members that hold the parts of data, in stored blocks and
// compressed ones.
func gzipTableOf(t testing.TB, data []byte, span int64) []byte {
	n := len(data) / 2
	p := writeFile(t, "a.gz", slices.Concat(gzipMember(t, data[:n], 6, gzipName), gzipMember(t, nil, 6, 0), gzipMember(t, data[n:], flate.NoCompression, 0)))
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cps, err := WalkGzip(f, fileSize(p), p, span)
	if err != nil {
		t.Fatal(err)
	}
	return EncodeGzipTable(cps, span)
}

// TestGzipTableEncoding: the example of gziptable.go's comment encodes as
// it says, and back; a walked table encodes and decodes to itself.
func TestGzipTableEncoding(t *testing.T) {
	example := []Checkpoint{{Bit: 0, Plain: 0, Sum: 0x0d0c0b0a}, {Bit: 120 * 8, Plain: 1000}}
	want := []byte{0x02, 0x80, 0x80, 0x40, 0x01, 0x00, 0x00, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0xc0, 0x07, 0xe8, 0x07}
	if got := EncodeGzipTable(example, DefaultSpan); !bytes.Equal(got, want) {
		t.Fatalf("EncodeGzipTable(the example) = % x, want % x", got, want)
	}
	if got, span, err := DecodeGzipTable(want); err != nil || span != DefaultSpan || !slices.EqualFunc(got, example, equalCheckpoints) {
		t.Fatalf("DecodeGzipTable(the example) = %v, %d, %v", got, span, err)
	}
	table := gzipTableOf(t, csvText(3000, 41), 1<<12)
	cps, span, err := DecodeGzipTable(table)
	if err != nil || span != 1<<12 {
		t.Fatal(span, err)
	}
	if len(cps) < 10 || !bytes.Equal(EncodeGzipTable(cps, span), table) {
		t.Fatalf("%d checkpoints; encoded again equal: %v", len(cps), bytes.Equal(EncodeGzipTable(cps, span), table))
	}
	members := 0
	for _, c := range cps[:len(cps)-1] {
		if len(c.Window) == 0 {
			members++
		}
	}
	if members != 2 {
		t.Fatalf("%d checkpoints at a member's start, want 2 (the empty member has none)", members)
	}
}

// TestGzipTableMalformed: every prefix of a table, a table with bytes
// after it, and tables that break each rule of DecodeGzipTable are
// errors.
func TestGzipTableMalformed(t *testing.T) {
	table := gzipTableOf(t, csvText(2000, 42), 1<<12)
	for n := range len(table) {
		if _, _, err := DecodeGzipTable(table[:n]); !errors.Is(err, errGzipTable) {
			t.Fatalf("the table's first %d bytes of %d: %v", n, len(table), err)
		}
	}
	if _, _, err := DecodeGzipTable(append(bytes.Clone(table), 0)); !errors.Is(err, errGzipTable) {
		t.Fatalf("the table and a byte: %v", err)
	}
	sum := []byte{1, 2, 3, 4}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"Version0", []byte{0, 0, 0, 0}},
		{"Version1", []byte{1, 0, 0, 0}},
		{"Version3", []byte{3, 0, 0, 0}},
		{"NoEnd", []byte{2, 16, 0}},
		{"EmptyWithPlain", []byte{2, 16, 0, 0, 5}},
		{"EndBetweenBytes", []byte{2, 16, 0, 3, 0}},
		{"FirstNotAtZero", slices.Concat([]byte{2, 16, 1, 8, 5}, sum, []byte{0, 8, 5})},
		{"FirstWithWindow", slices.Concat([]byte{2, 16, 1, 0, 0}, sum, []byte{1, 8, 5, 0xaa})},
		{"MemberBetweenBytes", slices.Concat([]byte{2, 16, 2, 0, 0}, sum, []byte{0, 3, 5}, sum, []byte{0, 8, 5})},
		{"EmptySpan", slices.Concat([]byte{2, 16, 2, 0, 0}, sum, []byte{0, 8, 0}, sum, []byte{0, 8, 5})},
		{"SameBit", slices.Concat([]byte{2, 16, 2, 0, 0}, sum, []byte{0, 0, 5}, sum, []byte{0, 8, 5})},
		{"EmptyLastSpan", slices.Concat([]byte{2, 16, 1, 0, 0}, sum, []byte{0, 8, 0})},
		{"WindowPastEnd", slices.Concat([]byte{2, 16, 2, 0, 0}, sum, []byte{0, 3, 5}, sum, []byte{9, 5, 5, 0xaa})},
		{"HugeCount", []byte{2, 16, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0}},
		{"Overflow", slices.Concat([]byte{2, 16, 1, 0, 0}, sum, []byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1})},
		{"BadVarint", []byte{2, 16, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0}},
		{"ZeroSpan", []byte{2, 0, 0, 0, 0}},
		{"SpanPastMaxFrame", []byte{2, 0x81, 0x80, 0x80, 0x40, 0, 0, 0}},
	} {
		if got, _, err := DecodeGzipTable(c.b); !errors.Is(err, errGzipTable) {
			t.Errorf("%s: DecodeGzipTable(% x) = %v, %v; want an error", c.name, c.b, got, err)
		}
	}
}

// FuzzDecodeGzipTable: DecodeGzipTable never panics, and what it accepts
// is a table by its rules, which encodes to bytes that decode to it again.
func FuzzDecodeGzipTable(f *testing.F) {
	f.Add([]byte{0x02, 0x80, 0x80, 0x40, 0x01, 0x00, 0x00, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0xc0, 0x07, 0xe8, 0x07})
	f.Add([]byte{2, 1, 0, 0, 0})
	table := gzipTableOf(f, csvText(500, 43), 1<<10)
	f.Add(table)
	f.Add(table[:len(table)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		cps, span, err := DecodeGzipTable(b)
		if err != nil {
			if !errors.Is(err, errGzipTable) {
				t.Fatalf("an error that is not errGzipTable: %v", err)
			}
			return
		}
		if len(cps) == 0 || cps[0].Plain != 0 || cps[len(cps)-1].Bit%8 != 0 {
			t.Fatalf("a table without its start or end: %v", cps)
		}
		for i := range len(cps) - 1 {
			if cps[i+1].Bit <= cps[i].Bit || cps[i+1].Plain <= cps[i].Plain || len(cps[i].Window) == 0 && cps[i].Bit%8 != 0 {
				t.Fatalf("checkpoints %d and %d: %+v, %+v", i, i+1, cps[i], cps[i+1])
			}
		}
		again, spanAgain, err := DecodeGzipTable(EncodeGzipTable(cps, span))
		if err != nil || spanAgain != span || !slices.EqualFunc(again, cps, equalCheckpoints) {
			t.Fatalf("encoded and decoded again: %v", err)
		}
	})
}
