package chunked

import (
	"math/rand/v2"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// garbage returns n to n+spread random bytes over the characters that
// matter to a CSV's structure (quotes, delimiters, \n, \r).
func garbage(r *rand.Rand, n, spread int) []byte {
	alphabet := []byte("ab1 ,\"\n\r")
	data := make([]byte, n+r.IntN(spread))
	for j := range data {
		data[j] = alphabet[r.IntN(len(alphabet))]
	}
	return data
}

// newSorter returns a sorter to be a scan's sink, closed when the test ends.
func newSorter(t testing.TB) *sorter.Sorter {
	t.Helper()
	srt := sorter.New(sorter.Options{MemLimit: 1 << 20, Threads: 2, TmpDir: t.TempDir()})
	t.Cleanup(func() { srt.Close() })
	return srt
}

// sorted finishes srt and returns its records, in sorted order.
func sorted(t testing.TB, srt *sorter.Sorter) []sorter.Record {
	t.Helper()
	var all []sorter.Record
	if err := srt.Finish(func(b []sorter.Record) error { all = append(all, b...); return nil }); err != nil {
		t.Fatal(err)
	}
	return all
}
