package index

import (
	"fmt"
	"strings"
	"testing"
)

// TestPreadLongRowsReleased: a heavy key's rows too long for a pread's
// window are read from the mapping, and the pages behind them are
// released as the first preadAfter rows' are: a get, a count and a get of
// several keys of 3,000 rows of 3 KB each (all past the 1 KiB window) end
// with a little of the CSV's mapping in memory, not the 9 MB they read.
func TestPreadLongRowsReleased(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,key,pad\n")
	pad := strings.Repeat("x", 3000)
	for i := range 3000 {
		fmt.Fprintf(&b, "%d,%s,%s\n", i, []string{"h", "g"}[i%2], pad)
	}
	p := writeCSV(t, b.String())
	build(t, p, &BuildOptions{Key: "key"})
	for name, look := range map[string]func(ix *Index) error{
		"get":   func(ix *Index) error { return ix.Lookup([]byte("h"), func([]byte) error { return nil }) },
		"count": func(ix *Index) error { _, err := ix.Count([]byte("h")); return err },
		"several": func(ix *Index) error {
			return ix.Get([][]byte{[]byte("h"), []byte("g")}, func([]byte) error { return nil })
		},
	} {
		ix := openIndex(t, p, nil)
		if err := look(ix); err != nil {
			t.Fatal(err)
		}
		kib, err := ix.csv.mapping().MappedKiB()
		if err != nil {
			t.Skip(err)
		}
		if kib > 2<<10 {
			t.Errorf("%s: %d KiB of the CSV's %d mapped in after the lookup", name, kib, len(ix.Data())>>10)
		}
	}
}
