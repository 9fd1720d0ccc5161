package format

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
)

// FuzzDensePage opens any page as a format 2 record page, with its CRC
// forged to match, and reads it whole and by lookups: a page that is not
// what the packer writes is an error, never a panic or a read out of
// bounds. The seeds are pages the packer wrote.
func FuzzDensePage(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, c := range []struct {
		n, keys int
		size    uint64
	}{{50, 40, 1 << 20}, {3000, 200, 1 << 33}, {2000, 2000, 1 << 16}} {
		recs := denseRecords(r, c.n, c.size, 32, c.keys)
		sink := &pagesSink{}
		p := NewDensePacker(sink, nil, FingerprintBits(uint64(len(recs))), uint64(len(recs)), c.size)
		for _, rc := range recs {
			if err := p.add(rc.fp<<p.Shift, rc.off); err != nil {
				f.Fatal(err)
			}
		}
		if err := p.flush(); err != nil {
			f.Fatal(err)
		}
		f.Add(sink.pages[0], uint8(p.width), uint64(recs[len(recs)/2].fp))
	}
	f.Fuzz(func(t *testing.T, data []byte, width uint8, fp uint64) {
		page := make([]byte, PageSize)
		copy(page, data)
		crcpage.Seal(page)
		w := 1 + int(width)%63
		d, err := OpenDensePage(page, uint64(binary.LittleEndian.Uint32(page[densePageNo:])), 32, w)
		if err != nil {
			return
		}
		rows := 0
		if err := d.Each(func(_ uint64, offs []uint64) error { rows += len(offs); return nil }); err == nil && rows != d.rows {
			t.Fatalf("a page read whole without error has %d rows, its header says %d", rows, d.rows)
		}
		_, _, _ = d.Lookup(fp%(1<<32), nil)
		_, _, _ = d.Lookup(d.first, nil)
	})
}
