package format

import (
	"encoding/binary"
	"os"
	"slices"
	"testing"
)

// TestDenseSizeOf packs the records of the format 1 index named by
// $CSVIDX_DENSE_INDEX into format 2 pages and reports the bytes per row: a
// measurement of the format on real files, skipped without the variable.
func TestDenseSizeOf(t *testing.T) {
	path := os.Getenv("CSVIDX_DENSE_INDEX")
	if path == "" {
		t.Skip("set CSVIDX_DENSE_INDEX to a format 1 index to measure format 2's size on it")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := DecodeHeader(data[:PageSize])
	if err != nil {
		t.Fatal(err)
	}
	sink := &countSink{}
	p := NewDensePacker(sink, nil, FingerprintBits(h.Records), h.Records, h.Scanned)
	mask := ^uint64(0) << p.Shift
	le := binary.LittleEndian
	var group []uint64 // offsets of one fingerprint, from runs of several hashes
	var groupFP uint64
	flush := func() {
		slices.Sort(group)
		for _, o := range group {
			if err := p.add(groupFP, o); err != nil {
				t.Fatal(err)
			}
		}
		group = group[:0]
	}
	runs := 0
	var last uint64
	for i := uint64(0); i < h.Records; i++ {
		at := RecordPos(i)
		hash, off := le.Uint64(data[at:]), le.Uint64(data[at+8:])
		if i == 0 || hash != last {
			runs++
			last = hash
		}
		if m := hash & mask; len(group) == 0 || m != groupFP {
			flush()
			groupFP = m
		}
		group = append(group, off)
	}
	flush()
	if err := p.flush(); err != nil {
		t.Fatal(err)
	}
	bytes := float64((sink.pages + 1) * PageSize)
	t.Logf("%s: %d rows, %d records, %d keys; F %d, W %d: %d record pages, %.3f bytes per row (format 1: %.3f)",
		path, h.Rows, h.Records, runs, p.fpBits, p.width, sink.pages, bytes/float64(h.Rows), float64(len(data))/float64(h.Rows))
}

// countSink counts the pages written to it.
type countSink struct{ pages int }

func (s *countSink) WritePage(uint64, []byte) error { s.pages++; return nil }
