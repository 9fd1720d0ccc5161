package index

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/zeebo/xxh3"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCSV is the example of format.go.
const goldenCSV = "id,user\n1,u1\n2,u2\n3,u1\n"

// TestGolden pins the bytes of a tiny index in each format: any change of
// a format shows up as a reviewable diff of testdata/tiny.csvidx.txt
// (format 1) or testdata/tiny2.csvidx.txt (format 2).
func TestGolden(t *testing.T) {
	t.Run("Format2", func(t *testing.T) { testGolden(t, "tiny2.csvidx.txt") })
	t.Run("Format1", func(t *testing.T) { useFlat(t); testGolden(t, "tiny.csvidx.txt") })
}

func testGolden(t *testing.T, name string) {
	p := writeCSV(t, goldenCSV)
	build(t, p, &BuildOptions{Key: "user"})
	idx, err := os.ReadFile(DefaultIndexPath(p))
	if err != nil {
		t.Fatal(err)
	}
	got := hexDump(idx)
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("the index bytes changed (go test ./index -run Golden -update rewrites the golden file if that is intended):\n%s", got)
	}
}

// TestFormatExample checks the worked examples in format/format.go.
func TestFormatExample(t *testing.T) {
	if h := xxh3.HashString("u1"); h != 0x9dc02546854d5df1 {
		t.Errorf("xxh3(u1) = %#x; fix format.go", h)
	}
	if h := xxh3.HashString("u2"); h != 0x7f89c7ec957f7b4e {
		t.Errorf("xxh3(u2) = %#x; fix format.go", h)
	}
	t.Run("Format2", testFormat2Example)
	t.Run("Format1", func(t *testing.T) { useFlat(t); testFormat1Example(t) })
}

// testFormat2Example checks format 2's example: F = 32, W = 5 (the CSV has
// 23 bytes), one record page of two runs, u2's fingerprint first.
func testFormat2Example(t *testing.T) {
	p := writeCSV(t, goldenCSV)
	build(t, p, &BuildOptions{Key: "user"})
	idx, _ := os.ReadFile(DefaultIndexPath(p))
	h, err := format.DecodeHeader(idx)
	if err != nil || h.FPBits != 32 || h.OffBits != 5 || h.Pages != 1 {
		t.Fatalf("header %+v, %v; want F 32, W 5, one record page", h, err)
	}
	d, err := format.OpenDensePage(idx[format.PageSize:2*format.PageSize], 0, 32, 5)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	err = d.Each(func(fp uint64, offs []uint64) error {
		runs = append(runs, fmt.Sprintf("%#x@%v", fp, offs))
		return nil
	})
	want := []string{"0x7f89c7ec@[13]", "0x9dc02546@[8 18]"}
	if err != nil || strings.Join(runs, " ") != strings.Join(want, " ") {
		t.Errorf("runs %v, %v; want %v", runs, err, want)
	}
}

func testFormat1Example(t *testing.T) {
	p := writeCSV(t, goldenCSV)
	build(t, p, &BuildOptions{Key: "user"})
	idx, _ := os.ReadFile(DefaultIndexPath(p))
	le := binary.LittleEndian
	var recs []string
	for i := 0; i < 3; i++ {
		o := format.PageSize + format.RecordSize*i
		recs = append(recs, fmt.Sprintf("%#x@%d", le.Uint64(idx[o:]), le.Uint64(idx[o+8:])))
	}
	want := []string{"0x7f89c7ec957f7b4e@13", "0x9dc02546854d5df1@8", "0x9dc02546854d5df1@18"}
	if strings.Join(recs, " ") != strings.Join(want, " ") {
		t.Errorf("records %v, want %v", recs, want)
	}
}

// hexDump formats b as offset, 16 hex bytes a line, eliding runs of zero
// lines with "*" as xxd -a does.
func hexDump(b []byte) string {
	var out strings.Builder
	zero := make([]byte, 16)
	elided := false
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		if bytes.Equal(line, zero) && off > 0 && off+16 < len(b) {
			if !elided {
				out.WriteString("*\n")
				elided = true
			}
			continue
		}
		elided = false
		fmt.Fprintf(&out, "%08x:", off)
		for i, c := range line {
			if i%8 == 0 {
				out.WriteByte(' ')
			}
			fmt.Fprintf(&out, " %02x", c)
		}
		out.WriteString("  ")
		for _, c := range line {
			if c < 32 || c > 126 {
				c = '.'
			}
			out.WriteByte(c)
		}
		out.WriteByte('\n')
	}
	return out.String()
}
