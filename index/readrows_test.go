package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
)

// countingSource counts the reads of a source.
type countingSource struct {
	source.Source
	reads *int
}

func (c countingSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	*c.reads++
	return c.Source.ReadAt(ctx, p, off)
}

// TestPreadRows: rows read by pread are the rows read from the mapping.
// With every candidate row read by pread (preadAfter 0), through windows
// of 3 bytes (every row goes on past its window: the mapping reads it),
// 64 and 1 KiB, Get of each nasty key, of all of them at once, and Count,
// give what the generator wrote, as with the mapping alone; over CSVs of
// every way to write a field, a byte order mark at times, unterminated
// last rows, and a tail. The source is read once a row at least (the pread
// path ran).
func TestPreadRows(t *testing.T) {
	defer func(n, w int) { preadAfter, rowWindowBytes = n, w }(preadAfter, rowWindowBytes)
	r := rand.New(rand.NewPCG(43, 11))
	for round := range 6 {
		g := makeCSV(r, 1500, round%2, ',', true, round%3 == 0)
		p := writeCSV(t, g.data)
		build(t, p, &BuildOptions{Key: []string{"0", "1"}[round%2]})
		gens := []*genCSV{&g}
		if round >= 4 { // a tail: rows appended, indexed by an update
			more := makeCSV(r, 300, round%2, ',', false, false)
			appendCSV(t, p, "\n"+strings.TrimPrefix(more.data, string(scan.BOM))) // a mark in the middle is data
			if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
				t.Fatal(err)
			}
			gens = append(gens, &more)
		}
		want := func(k string) (rows string, n int64) {
			for _, g := range gens {
				rows += g.want(k)
				for _, row := range g.rows {
					if row.hasKey && row.key == k {
						n++
					}
				}
			}
			return rows, n
		}
		ix := openIndex(t, p, nil)
		reads := 0
		ix.csv.src = countingSource{ix.csv.src, &reads}
		keys := append(append([]string{}, nastyKeys...), "missing")
		preadAfter, rowWindowBytes = 1<<30, 1<<10
		all := get(t, ix, keys...) // from the mapping alone
		for _, window := range []int{3, 64, 1 << 10} {
			preadAfter, rowWindowBytes = 0, window
			for _, k := range keys {
				rows, count := want(k)
				before := reads
				got := get(t, ix, k)
				if window == 1<<10 && reads-before < int(count) {
					t.Fatalf("round %d: Get(%q) read the source %d times for %d rows: not by pread", round, k, reads-before, count)
				}
				if got != rows {
					i := 0
					for i < min(len(got), len(rows)) && got[i] == rows[i] {
						i++
					}
					t.Fatalf("round %d, window %d: Get(%q) by pread differs at byte %d of %d (want %d): %q, want %q", round, window, k, i, len(got), len(rows), got[max(0, i-40):min(len(got), i+40)], rows[max(0, i-40):min(len(rows), i+40)])
				}
				if n, err := ix.Count([]byte(k)); err != nil || n != count {
					t.Fatalf("round %d, window %d: Count(%q) = %d, %v; want %d", round, window, k, n, err, count)
				}
			}
			if got := get(t, ix, keys...); got != all {
				t.Fatalf("round %d, window %d: Get of every key by pread differs from the mapping's", round, window)
			}
		}
	}
}

// TestPreadShrunk: a CSV cut short after its index was opened, within the
// last page of a heavy key's rows, is ErrChanged (the file shrank), as a
// fault on the mapping is: read by pread, the read ends early; read from
// the mapping, the cut bytes of the last page read as zeros, up to the
// mapping's end (Get handed out the last row with 30 NUL bytes and no
// error before stillWhole).
func TestPreadShrunk(t *testing.T) {
	defer func(n int) { preadAfter = n }(preadAfter)
	for _, after := range []int{256, 1 << 30} {
		preadAfter = after
		testShrunk(t)
	}
}

func testShrunk(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,k\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "%d,heavy,%s\n", i, strings.Repeat("x", i%50))
	}
	p := writeCSV(t, b.String())
	build(t, p, &BuildOptions{Key: "k"})
	ix := openIndex(t, p, nil)
	if err := os.Truncate(p, int64(b.Len()-30)); err != nil {
		t.Fatal(err)
	}
	err := ix.Get([][]byte{[]byte("heavy")}, func([]byte) error { return nil })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("preadAfter %d: Get of a key whose last rows were cut off: %v; want ErrChanged", preadAfter, err)
	}
}
