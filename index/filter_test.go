package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestUseFilters: with filters of the main index and the tail, Find finds
// every key's rows as Each does (a filter has no false negatives), and the
// filters turn most absent keys away; with too little memory for a filter
// to be worth it, none is built, and Find is right still.
func TestUseFilters(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 9))
	g := makeCSV(r, 3000, 1, ',', true, true)
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	appendCSV(t, p, "\n"+makeCSV(r, 400, 1, ',', false, false).data)
	if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{1 << 20, 1} {
		ix := openIndex(t, p, nil)
		if err := ix.UseFilters(budget); err != nil {
			t.Fatal(err)
		}
		built := ix.main.filter != nil && ix.tail != nil && ix.tail.filter != nil
		if built != (budget > 1) {
			t.Fatalf("budget %d: filters built: main %v, tail %v", budget, ix.main.filter != nil, ix.tail != nil && ix.tail.filter != nil)
		}
		rows, err := ix.Rows()
		if err != nil {
			t.Fatal(err)
		}
		each, err := ix.Rows()
		if err != nil {
			t.Fatal(err)
		}
		var keys [][]byte
		for _, k := range nastyKeys {
			keys = append(keys, []byte(k))
		}
		for i := range 500 {
			keys = append(keys, []byte(fmt.Sprintf("absent %d", i)))
		}
		err = ix.Guard(func() error {
			n, err := rows.Find(keys, 1<<30)
			if err != nil || n != len(keys) {
				return fmt.Errorf("Find: %d of %d keys, %v", n, len(keys), err)
			}
			for i, k := range keys {
				var got []int
				for _, f := range rows.Found(i) {
					got = append(got, f.Start)
				}
				if want := starts(eachSpans(t, ix, each, k)); fmt.Sprint(got) != fmt.Sprint(want) {
					return fmt.Errorf("budget %d: Find(%q) gives rows at %v; Each at %v", budget, k, got, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if built {
			turned := 0
			for _, k := range keys[len(nastyKeys):] {
				if !ix.main.filter.may(ix.main.searchKey(ix.hash(k))) {
					turned++
				}
			}
			if turned < 400 {
				t.Errorf("the main index's filter turned away %d of 500 absent keys", turned)
			}
		}
	}
}
