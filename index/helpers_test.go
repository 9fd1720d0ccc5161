package index

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/scan/chunked"
)

// useHash makes h the key hash of every build and lookup until the test
// ends (see testHash). Tests that use it must not run in parallel.
func useHash(t testing.TB, h func([]byte) uint64) {
	t.Helper()
	old := testHash
	testHash = h
	t.Cleanup(func() { testHash = old })
}

// useFlat makes builds write format 1 main indexes until the test ends
// (see testFlat). Tests that use it must not run in parallel.
func useFlat(t testing.TB) {
	t.Helper()
	old := testFlat
	testFlat = true
	t.Cleanup(func() { testFlat = old })
}

// useFPBits makes f the rule for F until the test ends (see testFPBits).
func useFPBits(t testing.TB, f func(records uint64) int) {
	t.Helper()
	old := testFPBits
	testFPBits = f
	t.Cleanup(func() { testFPBits = old })
}

// tune forces tu on every scan until the test ends, or until the next call
// (see testTuning). Tests that use it must not run in parallel.
func tune(t testing.TB, tu chunked.Tuning) {
	t.Helper()
	old := testTuning
	testTuning = tu
	t.Cleanup(func() { testTuning = old })
}

// writeCSV writes data to a new file in a test directory.
func writeCSV(t testing.TB, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func build(t testing.TB, p string, o *BuildOptions) *Info {
	t.Helper()
	info, err := Build(context.Background(), p, o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return info
}

// get returns the rows Get prints for keys.
func get(t testing.TB, ix *Index, keys ...string) string {
	t.Helper()
	var b bytes.Buffer
	bkeys := make([][]byte, len(keys))
	for i, k := range keys {
		bkeys[i] = []byte(k)
	}
	if err := ix.Get(bkeys, func(row []byte) error { b.Write(row); return nil }); err != nil {
		t.Fatalf("Get(%q): %v", keys, err)
	}
	return b.String()
}

// checkOnlyFiles fails unless dir holds exactly the CSV at csvPath, its
// index, fence and lock file: no temporary file of any kind.
func checkOnlyFiles(t *testing.T, csvPath string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(csvPath))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	base := filepath.Base(csvPath)
	if want := []string{base, base + ".csvidx", base + ".csvidx.fence", base + ".csvidx.lock"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("the directory holds %q, want %q", names, want)
	}
}

// appendCSV appends data to the file at p.
func appendCSV(t *testing.T, p, data string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// bigCSV returns a CSV of more than twice 64 KiB, so that its middle is
// outside both fingerprinted ends.
func bigCSV(t *testing.T) (genCSV, string) {
	r := rand.New(rand.NewPCG(5, 5))
	g := makeCSV(r, 12000, 1, ',', true, false)
	if len(g.data) < 3*format.EndHashLen {
		t.Fatalf("generated CSV is only %d bytes", len(g.data))
	}
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	return g, p
}

// editAt overwrites one byte of the file at path.
func editAt(t *testing.T, path string, off int64, c byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte{c}, off); err != nil {
		t.Fatal(err)
	}
}

// buildBytes builds the index of the CSV at p with res, and the scan tuned
// as tu says if given (see chunked.Tuning), and returns its bytes and the build's
// statistics.
func buildBytes(t *testing.T, p string, key string, noHeader bool, res Resources, tu ...chunked.Tuning) ([]byte, *BuildStats) {
	t.Helper()
	old := testTuning
	testTuning = chunked.Tuning{}
	if len(tu) > 0 {
		testTuning = tu[0]
	}
	defer func() { testTuning = old }()
	out := filepath.Join(t.TempDir(), "i.csvidx")
	info, err := Build(context.Background(), p, &BuildOptions{Key: key, NoHeader: noHeader, IndexPath: out, Resources: res})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b, info.Build
}
