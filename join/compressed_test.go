package join

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/tooltest"
	_ "github.com/csvidx/csvidx/source/compressed" // the backends of BGZF and zstd files
)

// TestJoinCompressedRight: a join with a compressed RIGHT (BGZF, zstd in
// frames of pzstd's and of concatenated files, the last row cut across
// two of them), read through its frames, writes byte for byte what the
// join with the plain RIGHT writes, in every mode: rows with quoted
// newlines, CRLF, a heavy key, keys absent from either side, an
// unterminated last row; and again once rows were appended to RIGHT and
// indexed into a tail.
func TestJoinCompressedRight(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 50))
	var rb strings.Builder
	rb.WriteString("k,w,note\r\n")
	for i := range 12000 {
		k := fmt.Sprint(r.IntN(2500))
		if i%7 == 0 {
			k = "heavy"
		}
		note := []string{`plain`, `"two` + "\n" + `lines"`, `"a,b"`, `""`, `"say ""hi"""`}[r.IntN(5)]
		end := []string{"\n", "\r\n"}[r.IntN(2)]
		fmt.Fprintf(&rb, "%s,w%d,%s%s", k, i, note, end)
	}
	rb.WriteString("77,last,unterminated")
	right := rb.String()
	var lb strings.Builder
	lb.WriteString("k,v\n")
	for i := range 4000 {
		k := fmt.Sprint(r.IntN(3000))
		if i%1000 == 3 {
			k = "heavy"
		}
		fmt.Fprintf(&lb, "%s,%d\n", k, i)
	}
	left := lb.String()
	cut := len(right) * 2 / 3
	for _, c := range []struct{ name, tool, cmd string }{
		{"BGZF", "bgzip", `bgzip -c "$IN" > "$OUT"`},
		{"Pzstd", "pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`},
		{"ZstdFrames", "zstd", `split -b 20000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, err := os.ReadFile(tooltest.Compress(t, []byte(right[:cut]), c.tool, c.cmd, "r.csv.z"))
			if err != nil {
				t.Fatal(err)
			}
			rest, err := os.ReadFile(tooltest.Compress(t, []byte(right[cut:]), c.tool, c.cmd, "r.csv.z"))
			if err != nil {
				t.Fatal(err)
			}
			comp := writeCSV(t, string(first))
			plain := writeCSV(t, right[:cut])
			for _, p := range []string{comp, plain} {
				build(t, p, &index.BuildOptions{Key: "k"})
			}
			same(t, left, plain, comp)
			// Rows appended to each, indexed into a tail.
			for _, a := range []struct {
				path string
				more []byte
			}{{comp, rest}, {plain, []byte(right[cut:])}} {
				f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.Write(a.more); err != nil {
					t.Fatal(err)
				}
				f.Close()
				if res, err := index.Update(context.Background(), a.path, &index.UpdateOptions{NoCompact: true}); err != nil || res.Action != "tail" {
					t.Fatalf("Update = %+v, %v", res, err)
				}
			}
			same(t, left, plain, comp)
		})
	}
}

// same fails unless the join of left with comp writes, in every mode,
// what it writes with plain.
func same(t *testing.T, left, plain, comp string) {
	t.Helper()
	for _, mode := range []Mode{Inner, Left, Semi, Anti, Right, Full, RightSemi, RightAnti} {
		var outs [2]bytes.Buffer
		for i, right := range []string{plain, comp} {
			j, err := New(strings.NewReader(left), right, &Options{Mode: mode, Key: "k"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = j.Run(context.Background(), &outs[i])
			j.Close()
			if err != nil {
				t.Fatalf("mode %d, RIGHT %s: %v", mode, right, err)
			}
		}
		if outs[1].String() != outs[0].String() {
			t.Fatalf("mode %d: the join with the compressed RIGHT writes %d bytes, with the plain one %d:\n%.400q\n%.400q",
				mode, outs[1].Len(), outs[0].Len(), outs[1].String(), outs[0].String())
		}
		if outs[0].Len() < 100 && mode != Anti {
			t.Fatalf("mode %d: only %d bytes written", mode, outs[0].Len())
		}
	}
}
