package index

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestColdLookupReadsOnlyItsRows checks, with the page cache dropped before
// each lookup, that a lookup reads the pages of its rows and nothing else
// of the CSV: not the first page (the scanner used to look for a byte
// order mark there, a wasted trip to storage before the search), and the
// page before a row that starts a page (the line-start check reads the
// byte before the row). Both the ordinary and the cold path (rows asked
// for ahead) are checked.
func TestColdLookupReadsOnlyItsRows(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,key,v\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "%06d,k%d,xxxxxxxx\n", i, i%500)
	}
	data := []byte(b.String())
	p := writeCSV(t, b.String())
	build(t, p, &BuildOptions{Key: "key"})
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.DropCache(); err != nil {
		t.Fatal(err)
	}
	if r, err := ix.Resident(); err != nil || r.CSV > 0 {
		t.Skipf("the page cache keeps this file system's pages (%d resident, %v)", r.CSV, err)
	}

	// wantPages returns the CSV pages the rows of key occupy, with the
	// page before each row that starts a page.
	wantPages := func(key string) []int {
		var pages []int
		for off := 0; off < len(data); {
			end := off + bytes.IndexByte(data[off:], '\n') + 1
			if f := bytes.Split(data[off:end-1], []byte(",")); len(f) > 1 && string(f[1]) == key {
				if off%int(osPage) == 0 {
					pages = append(pages, (off-1)/int(osPage))
				}
				for pg := off / int(osPage); pg <= (end-1)/int(osPage); pg++ {
					pages = append(pages, pg)
				}
			}
			off = end
		}
		slices.Sort(pages)
		return slices.Compact(pages)
	}
	// The key of a row that starts a page, to check that page's neighbour.
	keys := []string{"k7", "k250"}
	for pg := int(osPage); pg < len(data); pg += int(osPage) {
		if data[pg-1] == '\n' {
			f := bytes.Split(data[pg:pg+bytes.IndexByte(data[pg:], '\n')], []byte(","))
			keys = append(keys, string(f[1]))
			break
		}
	}
	if len(keys) < 3 {
		t.Fatal("no row starts a page: change the data")
	}
	defer func(d time.Duration) { coldSearch = d }(coldSearch)
	for _, cold := range []time.Duration{coldSearch, -1} {
		coldSearch = cold
		for _, key := range keys {
			want := wantPages(key)
			if err := ix.DropCache(); err != nil {
				t.Fatal(err)
			}
			rows := 0
			if err := ix.Lookup([]byte(key), func([]byte) error { rows++; return nil }); err != nil {
				t.Fatal(err)
			}
			r, err := ix.Resident()
			if err != nil {
				t.Fatal(err)
			}
			if rows != 40 || r.CSV != len(want) {
				t.Errorf("coldSearch %v, key %s: %d rows; %d CSV pages read, want %d (%v)", cold, key, rows, r.CSV, len(want), want)
			}
		}
	}
}
