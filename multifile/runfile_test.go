package multifile

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// TestRunFile: a run file gives back its records (their hashes' top 48
// bits, the rest zero), whatever the gaps
// between their offsets (up to the largest), in batches; one with a byte
// changed, cut short, or read for another count or sum, is an error that
// says it is damaged.
func TestRunFile(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	dir := t.TempDir()
	for _, n := range []int{0, 1, 5, 40000, 100000} {
		var recs []sorter.Record
		off := uint64(0)
		for range n {
			switch r.IntN(100) {
			case 0:
				off += 1 << 40 // a gap of a terabyte
			case 1:
				off += 0 // two records of one offset: two keys of a row... or none apart
			default:
				off += uint64(1 + r.IntN(300))
			}
			recs = append(recs, sorter.Record{Hash: r.Uint64(), Offset: off})
		}
		path := filepath.Join(dir, "run")
		rw, err := createRun(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			rw.add(rec)
		}
		sum, err := rw.commit()
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(recs)
		for i := range want {
			want[i].Hash &^= 1<<16 - 1
		}
		var got []sorter.Record
		if err := readRun(path, uint64(n), sum, func(b []sorter.Record) error { got = append(got, b...); return nil }); err != nil || !slices.Equal(got, want) {
			t.Fatalf("%d records: read %d, %v", n, len(got), err)
		}
		if n == 0 {
			continue
		}
		data, _ := os.ReadFile(path)
		if n > 1000 && len(data) > 9*n {
			t.Errorf("%d records take %d bytes", n, len(data))
		}
		bad := func(what string, data []byte, count, sum uint64) {
			t.Helper()
			os.WriteFile(path, data, 0o644)
			if err := readRun(path, count, sum, func([]sorter.Record) error { return nil }); err == nil || !strings.Contains(err.Error(), "damaged run file") {
				t.Errorf("%d records, %s: %v", n, what, err)
			}
		}
		changed := slices.Clone(data)
		changed[runHeader+r.IntN(len(data)-runHeader-8)] ^= 0x10
		bad("a byte changed", changed, uint64(n), sum)
		bad("cut short", data[:len(data)-3], uint64(n), sum)
		bad("another count", data, uint64(n)+1, sum)
		bad("another sum", data, uint64(n), sum+1)
	}
}
