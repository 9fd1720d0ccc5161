package format

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
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

// TestRestartBefore: restartBefore, which guesses where a fingerprint lies
// among a page's restarts, finds the restart a binary search finds: for
// every restart's fingerprint, its neighbours, and fingerprints at random,
// below the page's first and beyond its last, on pages of keys spread
// evenly and of keys bunched at one end.
func TestRestartBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 43))
	for round := range 20 {
		n := 200 + r.IntN(5000)
		recs := denseRecords(r, n, 1<<30, FingerprintBits(uint64(n)), 1+r.IntN(n))
		if round%2 == 1 { // bunched: most fingerprints low, a few high
			for i := range recs {
				if i < len(recs)*9/10 {
					recs[i].fp /= 1000
				}
			}
			slices.SortFunc(recs, func(a, b denseRec) int { return cmp.Or(cmp.Compare(a.fp, b.fp), cmp.Compare(a.off, b.off)) })
		}
		sink, p := packDense(t, recs, 1<<30)
		for i, pg := range sink.pages {
			d, err := OpenDensePage(pg, uint64(i), p.fpBits, p.width)
			if err != nil {
				t.Fatal(err)
			}
			probes := []uint64{0, d.first - 1, d.first, d.first + 1, 1<<uint(p.fpBits) - 1}
			for j := 1; j <= d.restarts(); j++ {
				f := restartFP(d, j)
				probes = append(probes, f-1, f, f+1)
			}
			for range 50 {
				probes = append(probes, r.Uint64N(1<<uint(p.fpBits)))
			}
			for _, fp := range probes {
				got, err := d.restartBefore(d.reader(), fp)
				if want := binaryRestart(d, fp); err != nil || got != want {
					t.Fatalf("round %d, page %d: restartBefore(%#x) = %d, %v; a binary search finds %d", round, i, fp, got, err, want)
				}
			}
		}
	}
}

// restartFP returns the fingerprint of d's restart j.
func restartFP(d DensePage, j int) uint64 {
	r := d.reader()
	r.pos = d.restartPos(j)
	return r.raw(d.fpBits)
}

// binaryRestart is restartBefore by binary search: the last restart whose
// fingerprint is at most fp, or 0.
func binaryRestart(d DensePage, fp uint64) int {
	lo, hi := 0, d.restarts()
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if restartFP(d, mid) <= fp {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// TestReadHeadFast: readHeadFast reads every run that is not a restart as
// readHead does, or declines and leaves the reader where it was; over
// pages of every shape the packer writes, it reads nearly all of them.
func TestReadHeadFast(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 44))
	fast, runs := 0, 0
	for round := range 30 {
		n := 100 + r.IntN(6000)
		size := uint64(1) << (16 + r.IntN(30))
		recs := denseRecords(r, n, size, FingerprintBits(uint64(n)), 1+r.IntN(n))
		sink, p := packDense(t, recs, size)
		for pg, page := range sink.pages {
			d, err := OpenDensePage(page, uint64(pg), p.fpBits, p.width)
			if err != nil {
				t.Fatal(err)
			}
			rd := d.reader()
			var prev uint64
			for i := range d.runs {
				at := *rd
				if i%restartEvery != 0 {
					runs++
					fp, c, ok := d.readHeadFast(rd, prev)
					if !ok && rd.pos != at.pos {
						t.Fatalf("round %d, page %d, run %d: declined, and moved the reader %d bits", round, pg, i, rd.pos-at.pos)
					}
					if ok {
						fast++
						slow := at
						wantFP, wantC, err := d.readHead(&slow, i, prev)
						if err != nil || fp != wantFP || c != wantC || rd.pos != slow.pos {
							t.Fatalf("round %d, page %d, run %d: fast %#x, %d rows, at bit %d; readHead %#x, %d, at %d, %v",
								round, pg, i, fp, c, rd.pos, wantFP, wantC, slow.pos, err)
						}
					}
					*rd = at
				}
				if prev, _, err = d.readRun(rd, i, prev, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if fast < runs*9/10 {
		t.Errorf("readHeadFast read %d of %d runs", fast, runs)
	}
}

// TestLookupAllocs: a lookup whose buffer has room allocates nothing, and
// one without grows its buffer a few times, not for each run, though the runs it reads
// past hold many offsets each (the first draft of readOffsets's split from
// the run's head grew a new buffer for each run read past: in-process
// lookups 10% slower).
func TestLookupAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 45))
	recs := denseRecords(r, 4000, 1<<30, FingerprintBits(4000), 300) // about 13 rows a key
	sink, p := packDense(t, recs, 1<<30)
	d, err := OpenDensePage(sink.pages[0], 0, p.fpBits, p.width)
	if err != nil {
		t.Fatal(err)
	}
	var fps []uint64
	d.Each(func(fp uint64, _ []uint64) error { fps = append(fps, fp); return nil })
	for _, c := range []struct {
		buf  []uint64
		most float64
	}{{make([]uint64, 0, 4096), 0}, {nil, 6}} {
		for _, fp := range []uint64{fps[restartEvery-2], fps[len(fps)/2], fps[len(fps)-1] + 1} {
			allocs := testing.AllocsPerRun(20, func() {
				if _, _, err := d.Lookup(fp, c.buf[:0]); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > c.most {
				t.Errorf("Lookup(%#x) with a buffer of room for %d: %v allocations, want %v at most", fp, cap(c.buf), allocs, c.most)
			}
		}
	}
}
