package join

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// joinRef is the in-test reference join: RIGHT's rows by key, in order.
// With once, the key is printed once (Coalesce): RIGHT's key column is
// left out, and an unmatched RIGHT row's key is in LEFT's.
func joinRef(mode Mode, once bool, left [][2]string, right [][2]string) []string {
	byKey := map[string][]int{}
	for i, r := range right {
		byKey[r[0]] = append(byKey[r[0]], i)
	}
	rightSide := func(r [2]string) string { return r[0] + "," + r[1] }
	unmatchedLeft := ",,"
	if once {
		rightSide = func(r [2]string) string { return r[1] }
		unmatchedLeft = ","
	}
	out := []string{"k,v," + rightSide([2]string{"k", "w"})}
	switch mode {
	case Semi, Anti:
		out = []string{"k,v"}
	case RightSemi, RightAnti:
		out = []string{"k,w"}
	}
	matched := map[int]bool{}
	for _, l := range left {
		rows := byKey[l[0]]
		if l[0] == "" {
			rows = nil // an empty key matches nothing
		}
		switch mode {
		case Semi, Anti:
			if (len(rows) > 0) == (mode == Semi) {
				out = append(out, l[0]+","+l[1])
			}
			continue
		case RightSemi, RightAnti:
			for _, i := range rows {
				matched[i] = true
			}
			continue
		}
		for _, i := range rows {
			matched[i] = true
			out = append(out, l[0]+","+l[1]+","+rightSide(right[i]))
		}
		if len(rows) == 0 && (mode == Left || mode == Full) {
			out = append(out, l[0]+","+l[1]+unmatchedLeft)
		}
	}
	for i, r := range right {
		switch {
		case (mode == Right || mode == Full) && !matched[i] && once:
			out = append(out, r[0]+",,"+r[1]) // the key in LEFT's key column
		case (mode == Right || mode == Full) && !matched[i]:
			out = append(out, ",,"+r[0]+","+r[1])
		case mode == RightSemi && matched[i], mode == RightAnti && !matched[i]:
			out = append(out, r[0]+","+r[1])
		}
	}
	return out
}

// TestJoinWorkers: with several workers and many batches, a heavy key whose
// rows overflow a worker's buffer, and every mode, the join's output is the
// reference's, line for line and in order: with the batch's rows found
// at once, and with a limit on them that the heavy key's rows exceed
// (they stream) and one that takes a key at a time; and with the keys
// filtered through a bitmap of RIGHT's fingerprints.
func TestJoinWorkers(t *testing.T) {
	for _, limit := range []int{findRows, 1000, 1} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			defer func(n int) { findRows = n }(findRows)
			findRows = limit
			testJoinWorkers(t)
		})
	}
	t.Run("filtered", func(t *testing.T) { // RIGHT's fingerprints in a filter, whatever LEFT's size
		defer func(n int64) { filterRows = n }(filterRows)
		filterRows = 0
		testJoinWorkers(t)
	})
}

func testJoinWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := rand.New(rand.NewPCG(30, 30))
	var right [][2]string
	var rb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 30000 {
		k := fmt.Sprint(r.IntN(3000))
		if i%2 == 0 {
			k = "heavy" // 15,000 rows: about 1.5 MiB of output a match
		}
		w := fmt.Sprintf("w%d-%s", i, strings.Repeat("x", r.IntN(60)))
		right = append(right, [2]string{k, w})
		rb.WriteString(k + "," + w + "\n")
	}
	rp := writeCSV(t, rb.String())
	build(t, rp, &index.BuildOptions{Key: "k"})
	var left [][2]string
	var lb strings.Builder
	lb.WriteString("k,v\n")
	for i := range 20000 {
		k := fmt.Sprint(r.IntN(4000)) // some absent
		switch i % 5000 {
		case 7:
			k = "heavy"
		case 8:
			k = ""
		}
		left = append(left, [2]string{k, fmt.Sprint(i)})
		lb.WriteString(k + "," + fmt.Sprint(i) + "\n")
	}
	type config struct {
		mode Mode
		once bool
		res  index.Resources
	}
	var configs []config
	for _, mode := range []Mode{Inner, Left, Semi, Anti, Right, Full, RightSemi, RightAnti} {
		configs = append(configs, config{mode, false, index.Resources{}})
	}
	for _, mode := range []Mode{Inner, Left, Right, Full} { // the key printed once
		configs = append(configs, config{mode, true, index.Resources{}})
	}
	// The bitmap of RIGHT's rows in a file, past a limit of a byte.
	configs = append(configs, config{Right, false, index.Resources{MemLimit: 1}}, config{Full, false, index.Resources{MemLimit: 1, TmpDir: t.TempDir()}},
		config{RightSemi, false, index.Resources{MemLimit: 1}}, config{RightAnti, false, index.Resources{MemLimit: 1}})
	for _, c := range configs {
		mode := c.mode
		j, err := New(strings.NewReader(lb.String()), rp, &Options{Mode: mode, Key: "k", Coalesce: c.once, Resources: c.res})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rows, err := j.Run(context.Background(), &out)
		j.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := joinRef(mode, c.once, left, right)
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("mode %d, once %v: line %d: %q, want %q", mode, c.once, i, got[i], want[i])
			}
		}
		if len(got) != len(want) || rows != int64(len(want)-1) {
			t.Fatalf("mode %d, once %v: %d lines, %d rows; want %d lines", mode, c.once, len(got), rows, len(want))
		}
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

var errWrite = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errWrite
	}
	f.n -= len(p)
	return len(p), nil
}

// TestJoinWriteFails: a write error stops the join and is returned, with
// several workers in flight.
func TestJoinWriteFails(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var rb, lb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 1000 {
		fmt.Fprintf(&rb, "%d,%d\n", i, i)
	}
	lb.WriteString("k\n")
	for i := range 200000 {
		fmt.Fprintf(&lb, "%d\n", i%1000)
	}
	rp := writeCSV(t, rb.String())
	build(t, rp, &index.BuildOptions{Key: "k"})
	j, err := New(strings.NewReader(lb.String()), rp, &Options{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Run(context.Background(), &failWriter{n: 100 << 10}); !errors.Is(err, errWrite) {
		t.Fatalf("Run into a failing writer: %v, want the write error", err)
	}
}

// TestJoinOptions: the options that shape the output: prefixes on the
// header's names, a LEFT without a header, a RIGHT without one (its column
// numbers as names), empty keys with and without Nulls, LEFT in another
// delimiter than RIGHT (RIGHT's rows re-encoded, its fields as written
// otherwise), and RIGHT's index picked by its path or its directory.
func TestJoinOptions(t *testing.T) {
	dir := t.TempDir()
	rp := filepath.Join(dir, "r.csv")
	if err := os.WriteFile(rp, []byte("k,w\n1,a\n2,\"b;c\"\n,empty\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build(t, rp, &index.BuildOptions{Key: "k"})
	np := filepath.Join(dir, "n.csv")
	if err := os.WriteFile(np, []byte("1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build(t, np, &index.BuildOptions{Key: "0", NoHeader: true})
	ip := filepath.Join(dir, "elsewhere.idx")
	build(t, rp, &index.BuildOptions{Key: "w", IndexPath: ip})
	idxDir := t.TempDir()
	build(t, np, &index.BuildOptions{Key: "1", NoHeader: true, IndexDir: idxDir})
	kp := filepath.Join(dir, "k.csv") // its key alone
	if err := os.WriteFile(kp, []byte("k\n1\n\"\"\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build(t, kp, &index.BuildOptions{Key: "k"})
	kpTab := filepath.Join(dir, "k.tsv") // the same, tab-separated: its rows are re-encoded
	if err := os.WriteFile(kpTab, []byte("k\n1\n\"\"\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build(t, kpTab, &index.BuildOptions{Key: "k", Delimiter: '\t'})
	for _, c := range []struct {
		name  string
		left  string
		right string
		opts  Options
		want  string
	}{
		{"prefixes", "k,v\n1,x\n", rp, Options{Key: "k", PrefixLeft: "l.", PrefixRight: "r."}, "l.k,l.v,r.k,r.w\n1,x,1,a\n"},
		{"semi: LEFT's header as it is", "k,v\n1,x\n3,y\n", rp, Options{Mode: Semi, Key: "k", PrefixLeft: "l.", PrefixRight: "r."}, "k,v\n1,x\n"},
		{"no header", "1,x\n2,y\n", rp, Options{Key: "0", NoHeader: true, RightKey: "k"}, "1,x,1,a\n2,y,2,\"b;c\"\n"},
		{"RIGHT without a header", "k,v\n2,x\n", np, Options{Key: "k", RightKey: "0"}, "k,v,0,1\n2,x,2,b\n"},
		{"RIGHT without a header, prefixed", "k,v\n2,x\n", np, Options{Key: "k", RightKey: "0", PrefixRight: "r"}, "k,v,r0,r1\n2,x,2,b\n"},
		{"empty keys match nothing", "k,v\n,x\n", rp, Options{Mode: Left, Key: "k"}, "k,v,k,w\n,x,,\n"},
		{"Nulls", "k,v\n,x\n", rp, Options{Mode: Left, Key: "k", Nulls: true}, "k,v,k,w\n,x,,empty\n"},
		{"another delimiter", "k;v\n2;x\n", rp, Options{Key: "k", Delimiter: ';'}, "k;v;k;w\n2;x;2;\"b;c\"\n"},
		{"RightIndex", "w\na\n", rp, Options{Key: "w", RightIndex: ip}, "w,k,w\na,1,a\n"},
		{"RightIndexDir", "w\nb\n", np, Options{Key: "0", NoHeader: true, RightKey: "1", RightIndexDir: idxDir}, "b,2,b\n"},
		// RIGHT's rows alone: its header, prefixes or not, and rows as
		// written in LEFT's delimiter; re-encoded in another; each matched
		// row once; none of RIGHT's header with NoHeader, nor when it has
		// none; a row with an empty key is matched only with Nulls.
		{"right-semi", "k,v\n2,x\n2,y\n3,z\n", rp, Options{Mode: RightSemi, Key: "k", PrefixLeft: "l.", PrefixRight: "r."}, "k,w\n2,\"b;c\"\n"},
		{"right-anti", "k,v\n2,x\n,y\n", rp, Options{Mode: RightAnti, Key: "k"}, "k,w\n1,a\n,empty\n"},
		{"right-anti, Nulls", "k,v\n2,x\n,y\n", rp, Options{Mode: RightAnti, Key: "k", Nulls: true}, "k,w\n1,a\n"},
		{"right-semi, another delimiter", "k;v\n2;x\n1;y\n", rp, Options{Mode: RightSemi, Key: "k", Delimiter: ';'}, "k;w\n1;a\n2;\"b;c\"\n"},
		{"right-semi, no header", "2,x\n", rp, Options{Mode: RightSemi, Key: "0", NoHeader: true, RightKey: "k"}, "2,\"b;c\"\n"},
		{"right-anti, RIGHT without a header", "k,v\n2,x\n", np, Options{Mode: RightAnti, Key: "k", RightKey: "0"}, "1,a\n"},
		// The key printed once: RIGHT's key column left out; an unmatched
		// RIGHT row's key in LEFT's key column (empty for an empty key).
		{"coalesce", "k,v\n1,x\n3,y\n", rp, Options{Mode: Full, Key: "k", Coalesce: true}, "k,v,w\n1,x,a\n3,y,\n2,,\"b;c\"\n,,empty\n"},
		{"coalesce, prefixes", "v,k\n2,1\n", rp, Options{Mode: Right, Key: "k", Coalesce: true, PrefixLeft: "l.", PrefixRight: "r."}, "l.v,l.k,r.w\n2,1,a\n,2,\"b;c\"\n,,empty\n"},
		{"coalesce, RIGHT without a header", "k,v\n2,x\n", np, Options{Mode: Right, Key: "k", RightKey: "0", Coalesce: true}, "k,v,1\n2,x,b\n1,,a\n"},
		{"coalesce, another delimiter", "k;v\n2;x\n", rp, Options{Key: "k", Delimiter: ';', Coalesce: true}, "k;v;w\n2;x;\"b;c\"\n"},
		{"coalesce, a LEFT of its header alone", "k,v\n", rp, Options{Mode: Full, Key: "k", Coalesce: true}, "k,v,w\n1,,a\n2,,\"b;c\"\n,,empty\n"},
		{"coalesce, an empty LEFT: RIGHT's rows whole", "", rp, Options{Mode: Full, Key: "k", Coalesce: true}, "1,a\n2,\"b;c\"\n,empty\n"},
		{"coalesce, RIGHT of its key alone", "k,v\n1,x\n3,y\n", kp, Options{Mode: Full, Key: "k", Coalesce: true}, "k,v\n1,x\n3,y\n\"\",\n2,\n"},
		{"coalesce, both of their key alone", "k\n1\n", kp, Options{Mode: Right, Key: "k", Coalesce: true}, "k\n1\n\"\"\n2\n"},
		{"coalesce, both of their key alone, re-encoded", "k\n1\n", kpTab, Options{Mode: Right, Key: "k", Coalesce: true}, "k\n1\n\"\"\n2\n"},
	} {
		j, err := New(strings.NewReader(c.left), c.right, &c.opts)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var out bytes.Buffer
		_, err = j.Run(context.Background(), &out)
		j.Close()
		if err != nil || out.String() != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, out.String(), err, c.want)
		}
	}
}

// TestJoinRightRowsVerbatim: RightSemi and RightAnti print RIGHT's header
// and rows as written, terminators (CRLF) included; a row without the key
// (too short) is never matched; an unterminated last row gets a '\n', and
// is re-encoded when it ends inside a quote that never closes; in another
// delimiter than LEFT's, every row is re-encoded in LEFT's.
func TestJoinRightRowsVerbatim(t *testing.T) {
	for _, c := range []struct {
		name, right, left  string
		delim              byte
		semi, anti         string
		semiRows, antiRows int64
	}{
		{"CRLF, a short row, an unclosed last row", "a,k,b\r\n\"x\",1,p\r\nshort\r\ny,2,q\r\nz,3,\"op\r\nen", "k\n1\n3\n", ',',
			"a,k,b\r\n\"x\",1,p\r\nz,3,\"op\r\nen\"\n", "a,k,b\r\nshort\r\ny,2,q\r\n", 2, 2},
		{"an unterminated last row", "a,k\n\"x\",1\nz,3", "k\n3\n", ',', "a,k\nz,3\n", "a,k\n\"x\",1\n", 1, 1},
		{"another delimiter", "a,k\r\n\"x;\",1\r\nshort\r\n\"y\",2\n", "k\n1\n", ';', "a;k\n\"x;\";1\n", "a;k\nshort\ny;2\n", 1, 2},
	} {
		rp := writeCSV(t, c.right)
		build(t, rp, &index.BuildOptions{Key: "k"})
		for mode, want := range map[Mode]string{RightSemi: c.semi, RightAnti: c.anti} {
			wantRows := c.semiRows
			if mode == RightAnti {
				wantRows = c.antiRows
			}
			left := c.left
			if c.delim != ',' {
				left = strings.ReplaceAll(left, ",", string(c.delim))
			}
			j, err := New(strings.NewReader(left), rp, &Options{Mode: mode, Key: "k", Delimiter: c.delim})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			rows, err := j.Run(context.Background(), &out)
			j.Close()
			if err != nil || out.String() != want || rows != wantRows {
				t.Errorf("%s, mode %d: %q, %d rows, %v; want %q", c.name, mode, out.String(), rows, err, want)
			}
		}
	}
}
