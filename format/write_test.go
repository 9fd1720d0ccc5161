package format

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// fileSink keeps every page written to it at its number: a whole index
// file in memory.
type fileSink struct{ pages [][]byte }

func (s *fileSink) WritePage(n uint64, page []byte) error {
	for uint64(len(s.pages)) <= n {
		s.pages = append(s.pages, nil)
	}
	s.pages[n] = slices.Clone(page)
	return nil
}

func (s *fileSink) bytes() []byte { return bytes.Join(s.pages, nil) }

// writeFlat writes recs as a format 1 index file, in batches of up to 700
// records (so batches end inside pages and across them).
func writeFlat(t *testing.T, recs []sorter.Record) []byte {
	t.Helper()
	sink := &fileSink{}
	w := NewPageWriter(sink, nil)
	for len(recs) > 0 {
		n := min(len(recs), 1+len(recs)%700)
		if err := w.AddBatch(recs[:n]); err != nil {
			t.Fatal(err)
		}
		recs = recs[n:]
	}
	h := &Header{Delim: ',', Scanned: 1 << 40, Resume: 1 << 40, Rows: 1 << 20}
	if err := w.Finish(h); err != nil {
		t.Fatal(err)
	}
	return sink.bytes()
}

// TestEncodingPaths: on a little-endian machine the writer copies records'
// memory as their encoding; the record-by-record encoding, used elsewhere,
// must write the same bytes, and both must decode.
func TestEncodingPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	recs := make([]sorter.Record, 3000)
	for i := range recs {
		recs[i] = sorter.Record{Hash: r.Uint64(), Offset: r.Uint64N(1 << 40)}
	}
	slices.SortFunc(recs, func(a, b sorter.Record) int {
		if a.Hash != b.Hash {
			return cmp.Compare(a.Hash, b.Hash)
		}
		return cmp.Compare(a.Offset, b.Offset)
	})
	fast := writeFlat(t, recs)
	defer func(v bool) { littleEndian = v }(littleEndian)
	littleEndian = false
	slow := writeFlat(t, recs)
	if !bytes.Equal(fast, slow) {
		t.Fatal("encoding records one by one writes other bytes than copying their memory")
	}
	h, err := DecodeHeader(fast)
	if err != nil {
		t.Fatal(err)
	}
	if h.Records != uint64(len(recs)) || uint64(len(fast)) != h.Size() {
		t.Fatalf("%d records in %d bytes, want %d in %d", h.Records, len(fast), len(recs), h.Size())
	}
	for i, rec := range recs {
		at := RecordPos(uint64(i))
		if got := (sorter.Record{Hash: binary.LittleEndian.Uint64(fast[at:]), Offset: binary.LittleEndian.Uint64(fast[at+8:])}); got != rec {
			t.Fatalf("record %d: %+v, want %+v", i, got, rec)
		}
	}
}
