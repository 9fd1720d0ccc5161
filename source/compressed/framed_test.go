package compressed

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/source"
)

// TestExtendFramed: a BGZF or zstd file with members or frames appended
// (cat more.bgz >> f.bgz), opened through the table of what it was
// (source.OpenExtended), has the table a walk of the whole file makes,
// and reads as the plain bytes of both parts, without walking the old
// part (a damaged header there goes unseen); appended bytes that do not
// start a member or frame, and a file shorter than its old table, are
// errors.
func TestExtendFramed(t *testing.T) {
	a, b := csvText(3000, 21), csvText(2000, 22)
	for _, c := range []struct {
		backend string
		comp    func(data []byte) string
		open    func(string, []Block) (*Framed, error)
	}{
		{"bgzf", func(data []byte) string { return bgzipFile(t, data) }, OpenBGZF},
		{"zstd", func(data []byte) string {
			return zstdFile(t, data, "zstd", `split -b 100000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`)
		}, OpenZstd},
	} {
		t.Run(c.backend, func(t *testing.T) {
			first, err := os.ReadFile(c.comp(a))
			if err != nil {
				t.Fatal(err)
			}
			more, err := os.ReadFile(c.comp(b))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, first, 0o644); err != nil {
				t.Fatal(err)
			}
			old, err := source.Open(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			table := old.(source.Tabled).Table()
			old.Close()

			if err := os.WriteFile(p, slices.Concat(first, more), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := source.OpenExtended(p, c.backend, table)
			if err != nil {
				t.Fatal(err)
			}
			walked, err := source.Open(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := s.(*Framed).Blocks(), walked.(*Framed).Blocks(); !slices.Equal(got, want) {
				t.Errorf("extended table %v, want the walk's %v", got, want)
			}
			walked.Close()
			checkReads(t, s.(*Framed), slices.Concat(a, b), 100, 50000)
			s.Close()

			blocks, err := DecodeTable(table)
			if err != nil || len(blocks) < 3 {
				t.Fatalf("the old table: %v, %v", blocks, err)
			}
			damaged := slices.Concat(first, more)
			damaged[blocks[1].Comp] ^= 0xff
			if err := os.WriteFile(p, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := c.open(p, nil); err == nil {
				t.Fatal("a walk of a file with a damaged header succeeds")
			}
			s, err = source.OpenExtended(p, c.backend, table)
			if err != nil {
				t.Fatalf("extending past a damaged header: %v", err)
			}
			if got, want := s.(*Framed).Blocks(), walked.(*Framed).Blocks(); !slices.Equal(got, want) {
				t.Errorf("extended table %v, want the walk's %v", got, want)
			}
			s.Close()

			if err := os.WriteFile(p, slices.Concat(first, []byte("id,user,comment\n1,2,3\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			var ce *CorruptError
			if s, err := source.OpenExtended(p, c.backend, table); !errors.As(err, &ce) || ce.Offset != int64(len(first)) {
				t.Errorf("plain bytes appended: %v, %v; want a *CorruptError at %d", s, err, len(first))
			}
			if err := os.WriteFile(p, first[:len(first)-10], 0o644); err != nil {
				t.Fatal(err)
			}
			if s, err := source.OpenExtended(p, c.backend, table); !errors.As(err, &ce) {
				t.Errorf("a file shorter than its table: %v, %v; want a *CorruptError", s, err)
			}
		})
	}
}
