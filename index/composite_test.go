package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/scan"
)

// compositeCSV is a CSV keyed on the composite key (column 2, column 0):
// rows of nasty values in every encoding, short rows, blank lines.
type compositeCSV struct {
	data  string
	delim byte
	rows  []compositeRow
}

type compositeRow struct {
	a, b   string // the values of columns 2 and 0: the key (a, b)
	hasKey bool
	text   string
}

func makeCompositeCSV(r *rand.Rand, n int, delim byte, header bool) compositeCSV {
	g := compositeCSV{delim: delim}
	var b strings.Builder
	if header {
		b.WriteString(strings.Join([]string{"cola", "colb", encodeField(r, "c,c", delim)}, string(delim)) + "\n")
	}
	values := nastyKeys[:8] // few enough that pairs repeat
	for range n {
		if r.IntN(10) == 0 {
			b.WriteString("\n")
		}
		row := compositeRow{a: values[r.IntN(len(values))], b: values[r.IntN(len(values))]}
		fields := []string{row.b, "x", row.a, "tail\x00"}
		cols := 3 + r.IntN(2)
		if r.IntN(10) == 0 {
			cols = 1 + r.IntN(2) // lacks column 2
		}
		row.hasKey = cols > 2
		enc := make([]string, cols)
		for c := range cols {
			enc[c] = encodeField(r, fields[c], delim)
		}
		row.text = strings.Join(enc, string(delim))
		if row.text == "" || row.text == "\r" {
			row.text = `""`
		}
		row.text += []string{"\n", "\r\n"}[r.IntN(2)]
		g.rows = append(g.rows, row)
		b.WriteString(row.text)
	}
	g.data = b.String()
	return g
}

func (g *compositeCSV) count(a, b string) int64 {
	var n int64
	for _, row := range g.rows {
		if row.hasKey && row.a == a && row.b == b {
			n++
		}
	}
	return n
}

func (g *compositeCSV) want(a, b string) string {
	var out strings.Builder
	for _, row := range g.rows {
		if row.hasKey && row.a == a && row.b == b {
			out.WriteString(row.text)
		}
	}
	return out.String()
}

// TestCompositeKeyDifferential builds composite indexes over nasty fields,
// named and numbered, and holds every lookup of every pair of values, given
// as fields and as a CSV record, to the generator's rows; then appends rows,
// updates, and compacts, which must equal a build.
func TestCompositeKeyDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 29))
	for i := range 12 {
		delim := []byte{',', '\t', ';'}[i%3]
		header := i%2 == 0
		key := "2,0"
		if header {
			key = `"c,c",cola`
		}
		g := makeCompositeCSV(r, 200+r.IntN(400), delim, header)
		p := writeCSV(t, g.data)
		info := build(t, p, &BuildOptions{Key: key, Delimiter: delim, NoHeader: !header})
		if !slices.Equal(info.KeyColumns, []int{2, 0}) {
			t.Fatalf("key %q: columns %v", key, info.KeyColumns)
		}
		check := func(stage string) {
			ix, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			for _, a := range nastyKeys[:8] {
				for _, b := range nastyKeys[:8] {
					want := g.want(a, b)
					k, err := ix.CompositeKey([]byte(a), []byte(b))
					if err != nil {
						t.Fatal(err)
					}
					if got := get(t, ix, string(k)); got != want {
						t.Fatalf("%s, case %d: key (%q, %q): got %q, want %q", stage, i, a, b, got, want)
					}
					value := encodeField(r, a, delim) + string(delim) + encodeField(r, b, delim)
					k2, err := ix.Key([]byte(value))
					if err != nil || !bytes.Equal(k, k2) {
						t.Fatalf("%s: value %q: key %q, %v; want %q", stage, value, k2, err, k)
					}
					if n, err := ix.Count(k); err != nil || n != g.count(a, b) {
						t.Fatalf("%s: count of (%q, %q): %d, %v; want %d", stage, a, b, n, err, g.count(a, b))
					}
				}
			}
			if _, err := ix.Key([]byte("only-one")); err == nil {
				t.Fatalf("a value of one field for a key of two was taken")
			}
		}
		check("build")
		more := makeCompositeCSV(r, 50+r.IntN(100), delim, false)
		appendCSV(t, p, more.data)
		g.rows = append(g.rows, more.rows...)
		runUpdate(t, p, &UpdateOptions{NoCompact: true})
		check("update")
		if _, err := Compact(context.Background(), p, nil); err != nil {
			t.Fatal(err)
		}
		check("compact")
		compacted, err := os.ReadFile(DefaultIndexPath(p))
		if err != nil {
			t.Fatal(err)
		}
		build(t, p, &BuildOptions{Key: key, Delimiter: delim, NoHeader: !header})
		built, _ := os.ReadFile(DefaultIndexPath(p))
		if !bytes.Equal(compacted, built) {
			t.Fatalf("case %d: compact differs from build", i)
		}
	}
}

// TestCompositeKeyCounts checks Count against the rows, and that a key of
// one column keeps reading a whole value: "a,b" is the key a,b.
func TestCompositeKeyCounts(t *testing.T) {
	p := writeCSV(t, "id,user,status\n1,42,shipped\n2,42,\"a,b\"\n3,7,shipped\n4,42,shipped\n5,42\n")
	build(t, p, &BuildOptions{Key: "user,status"})
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for value, want := range map[string]int64{"42,shipped": 2, `42,"a,b"`: 1, "7,shipped": 1, "42,": 0, `"42",shipped`: 2} {
		k, err := ix.Key([]byte(value))
		if err != nil {
			t.Fatal(err)
		}
		if n, err := ix.Count(k); err != nil || n != want {
			t.Errorf("count %q: %d, %v; want %d", value, n, err, want)
		}
	}
	if info := ix.Info(); info.KeyName != "user,status" || info.ShortRows != 1 {
		t.Errorf("key name %q, short rows %d", info.KeyName, info.ShortRows)
	}
	ix.Close()

	p = writeCSV(t, "id,\"a,b\"\n1,x\n2,\"y\"\n")
	build(t, p, &BuildOptions{Key: `"a,b"`})
	ix, err = Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if k, err := ix.Key([]byte("p,q")); err != nil || string(k) != "p,q" {
		t.Errorf("one column: key %q, %v", k, err)
	}
	if got := get(t, ix, "y"); got != "2,\"y\"\n" {
		t.Errorf("one column named a,b: %q", got)
	}
	if len(ix.KeyColumns()) != 1 || ix.Info().KeyColumns != nil {
		t.Errorf("one column: %v, %v", ix.KeyColumns(), ix.Info().KeyColumns)
	}
}

// TestKeySpecErrors checks what a build says of a key spec it cannot take.
func TestKeySpecErrors(t *testing.T) {
	p := writeCSV(t, "id,user,status\n1,42,shipped\n")
	for key, want := range map[string]string{
		"user,user":                    "names column 1 twice",
		"user,1":                       "names column 1 twice",
		"user,nope":                    `no such column "nope"`,
		"user\nstatus":                 "one line",
		"user,9":                       "no row has all of the columns 1, 9",
		strings.Repeat("1,", 70) + "1": fmt.Sprintf("at most %d columns", scan.MaxKeyColumns),
	} {
		_, err := Build(context.Background(), p, &BuildOptions{Key: key})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("key %q: %v, want an error with %q", key, err, want)
		}
	}
}
