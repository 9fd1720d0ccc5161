package compressed

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/source"
)

// TestTable: a walked table encodes and decodes to itself, and
// source.OpenTable through it reads what the walked source reads;
// malformed encodings are refused.
func TestTable(t *testing.T) {
	data := csvText(8000, 9)
	for _, c := range []struct {
		backend string
		path    string
	}{
		{"bgzf", bgzipFile(t, data)},
		{"zstd", zstdFile(t, data, "pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`)},
	} {
		walked, err := source.Open(c.path, 0)
		if err != nil {
			t.Fatal(err)
		}
		tb := walked.(source.Tabled)
		if tb.Backend() != c.backend {
			t.Errorf("Backend() = %q, want %q", tb.Backend(), c.backend)
		}
		blocks, err := DecodeTable(tb.Table())
		if err != nil || !slices.Equal(blocks, walked.(*Framed).Blocks()) {
			t.Fatalf("%s: DecodeTable(EncodeTable) = %v, %v", c.backend, err, blocks)
		}
		s, err := source.OpenTable(c.path, c.backend, tb.Table())
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, len(data))
		if n, err := s.ReadAt(context.Background(), p, 0); n != len(data) || err != nil || !bytes.Equal(p, data) {
			t.Fatalf("%s through its table: %d, %v", c.backend, n, err)
		}
		head, tail, err := tb.FileEnds(100)
		if err != nil || len(head) != 100 || len(tail) != 100 {
			t.Fatalf("FileEnds: %d, %d, %v", len(head), len(tail), err)
		}
		s.Close()
		walked.Close()
	}
	for _, bad := range [][]byte{{}, {0x80}, {5}, {0, 3}, {0, 0, 0, 5}, {0, 0, 5, 0}} {
		if b, err := DecodeTable(bad); err == nil {
			t.Errorf("DecodeTable(%x) = %v, want an error", bad, b)
		}
	}
}
