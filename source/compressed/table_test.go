package compressed

import (
	"bytes"
	"context"
	"os"
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
		raw, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
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
		if st, err := os.Stat(c.path); err != nil || tb.Covered() != st.Size() {
			t.Fatalf("Covered: %d, the file's size: %v", tb.Covered(), st)
		}
		head := make([]byte, 100)
		if n, err := tb.FileAt(head, 0); n != 100 || err != nil || !bytes.Equal(head, raw[:100]) {
			t.Fatalf("FileAt: %d, %v", n, err)
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
