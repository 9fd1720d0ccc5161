package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/csvidx/csvidx/scan/chunked"
	_ "github.com/csvidx/csvidx/source/compressed" // the backends of BGZF and zstd files
)

// compressTool returns the path of a file holding data compressed by the
// shell command cmd (reading $IN, writing $OUT) with tool, which the test
// needs: it is skipped without it, or fails when CSVIDX_REQUIRE_TOOLS is
// set (test.sh sets it and installs the tools).
func compressTool(t *testing.T, data []byte, tool, cmd, name string) string {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CSVIDX_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s is needed: %v", tool, err)
		}
		t.Skipf("no %s: %v", tool, err)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "plain.csv"), filepath.Join(dir, name)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("sh", "-c", cmd)
	c.Env = append(os.Environ(), "IN="+in, "OUT="+out)
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", cmd, err, b)
	}
	return out
}

// compressions are the ways of compressing a CSV that a build reads
// through windows, by the tools that write them.
var compressions = []struct{ name, tool, cmd, file string }{
	{"BGZF", "bgzip", `bgzip -c "$IN" > "$OUT"`, "a.csv.gz"},
	{"ZstdFrames", "zstd", `split -b 50000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`, "a.csv.zst"},
	{"Pzstd", "pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`, "a.csv.zst"},
	{"ZstdOneFrame", "zstd", `zstd -q -c "$IN" > "$OUT"`, "a.csv"},
}

// TestBuildCompressedEqualsPlain: the index of a compressed CSV, read
// through windows of its plain bytes, is byte for byte the index of the
// plain CSV (the index keeps plain offsets and the plain bytes' checksums),
// for generated files of every dialect feature, with a header or not, one
// or two keys, on one thread or several with small chunks and windows.
func TestBuildCompressedEqualsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 40))
	for i := range 6 {
		g := makeCSV(r, 3000+r.IntN(20000), 1, ',', i%2 == 0, i%3 == 2)
		c := compressions[i%len(compressions)]
		t.Run(fmt.Sprintf("%d-%s", i, c.name), func(t *testing.T) {
			comp := compressTool(t, []byte(g.data), c.tool, c.cmd, c.file)
			plain := writeCSV(t, g.data)
			for _, threads := range []int{1, 2} {
				res := Resources{Threads: threads}
				tu := chunked.Tuning{ChunkBytes: 4096 << (i % 3)}
				want, _ := buildBytes(t, plain, "1", i%2 != 0, res, tu)
				got, _ := buildBytes(t, comp, "1", i%2 != 0, res, tu)
				if !bytes.Equal(got, want) {
					t.Fatalf("%d threads: the index of the compressed CSV differs from the plain CSV's (%d and %d bytes)", threads, len(got), len(want))
				}
			}
		})
	}
}
