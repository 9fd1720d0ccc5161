package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestLookupGenerated builds many generated CSVs, in every dialect
// variation, and checks every key against the rows known to have it.
func TestLookupGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 120; i++ {
		keyCol := r.IntN(3)
		delim := []byte{',', ';', '\t', '|'}[r.IntN(4)]
		header := r.IntN(3) != 0
		unterminated := r.IntN(3) == 0
		g := makeCSV(r, 1+r.IntN(300), keyCol, delim, header, unterminated)
		name := fmt.Sprintf("%d/col%d/delim%q/header=%v/unterminated=%v", i, keyCol, delim, header, unterminated)
		t.Run(name, func(t *testing.T) {
			p := writeCSV(t, g.data)
			key := strconv.Itoa(keyCol)
			if header && r.IntN(2) == 0 {
				key = "col" + string(rune('a'+keyCol))
			}
			info := build(t, p, &BuildOptions{Key: key, NoHeader: !header, Delimiter: delim})
			if info.Rows != int64(len(g.rows)) {
				t.Fatalf("Rows = %d, want %d", info.Rows, len(g.rows))
			}
			ix, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			for _, k := range append(nastyKeys, "missing") {
				if got, want := get(t, ix, k), g.want(k); got != want {
					t.Fatalf("Get(%q) =\n%q\nwant\n%q\ncsv:\n%q", k, got, want, g.data)
				}
				n, err := ix.Count([]byte(k))
				if err != nil {
					t.Fatal(err)
				}
				if want := g.count(k); n != want {
					t.Fatalf("Count(%q) = %d, want %d", k, n, want)
				}
			}
			// Many keys at once: file order, each row once.
			keys := []string{"u1", "7", "u1", "a,b", "missing", ""}
			var want strings.Builder
			for _, row := range g.rows {
				if row.hasKey && (row.key == "u1" || row.key == "7" || row.key == "a,b" || row.key == "") {
					want.WriteString(row.text)
					if !strings.HasSuffix(row.text, "\n") {
						want.WriteString("\n")
					}
				}
			}
			if got := get(t, ix, keys...); got != want.String() {
				t.Fatalf("Get(%q) =\n%q\nwant\n%q", keys, got, want.String())
			}
			res, err := Verify(context.Background(), p, nil)
			if err != nil || !res.Equal {
				t.Fatalf("Verify = %+v, %v", res, err)
			}
		})
	}
}
