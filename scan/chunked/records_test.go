package chunked

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/sorter"
)

// TestLongKeyStreamed checks that the scan hashes a long key that needs
// unescaping as the scanner streams it: scanning a record whose key is an
// 8 MiB quoted field with doubled quotes allocates far less than the key.
// Building the key in memory instead (as a custom Hash must) fails it.
func TestLongKeyStreamed(t *testing.T) {
	field := `"` + strings.Repeat(`ab""`, 2<<20) + `"` // 8 MiB, 6 MiB decoded
	s := &Scan{Data: []byte(field + ",x\n"), Delim: ','}
	buf := make([]sorter.Record, 0, 16)
	var got []sorter.Record
	add := func(b []sorter.Record) ([]sorter.Record, error) { got = append(got, b...); return b[:0], nil }
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, err := s.scanRange(0, math.MaxInt, [][]sorter.Record{buf}, []adder{add}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0].Hash != xxh3.Hash([]byte(strings.Repeat(`ab"`, 2<<20))) {
		t.Fatalf("records %v: want one, with the hash of the decoded key", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("scanning allocated %d bytes for a 6 MiB key: it was built in memory, not streamed", n)
	}
}

// TestCustomHash: a Scan's Hash is the hash of every key, long ones
// included, which it takes whole.
func TestCustomHash(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	s := &Scan{Data: []byte("a,1\n\"" + long + "\"\"\",2\nb\n"), Delim: ',', Hash: func(k []byte) uint64 { return uint64(len(k)) }}
	var got []sorter.Record
	add := func(b []sorter.Record) ([]sorter.Record, error) { got = append(got, b...); return b[:0], nil }
	_, tally, err := s.scanRange(0, math.MaxInt, [][]sorter.Record{make([]sorter.Record, 0, 4)}, []adder{add})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Hash != 1 || got[1].Hash != uint64(len(long)+1) || got[2].Hash != 1 {
		t.Fatalf("records %v: want hashes 1, %d, 1", got, len(long)+1)
	}
	if tally.Rows != 3 || tally.Short[0] != 0 {
		t.Fatalf("tally %+v: want 3 rows, none short", tally)
	}
}
