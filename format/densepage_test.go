package format

import (
	"cmp"
	"encoding/binary"
	"fmt"
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
	fast, heads := 0, 0
	for range 30 {
		n := 100 + r.IntN(6000)
		size := uint64(1) << (16 + r.IntN(30))
		recs := denseRecords(r, n, size, FingerprintBits(uint64(n)), 1+r.IntN(n))
		sink, p := packDense(t, recs, size)
		for pg, page := range sink.pages {
			d, err := OpenDensePage(page, uint64(pg), p.fpBits, p.width)
			if err != nil {
				t.Fatal(err)
			}
			f, h, err := checkHeads(t, d)
			if err != nil {
				t.Fatalf("page %d: %v", pg, err)
			}
			fast, heads = fast+f, heads+h
		}
	}
	if fast < heads*9/10 {
		t.Errorf("readHeadFast read %d of %d runs", fast, heads)
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

// FuzzDenseLookup holds a dense page's Lookup, with its guessed restart
// (restartBefore), its one-load run heads (readHeadFast) and its cached
// last restart, to the plain implementations: on any page, its CRC
// forged, with fingerprints of 32 to 64 bits, readHeadFast reads every run
// head readHead reads, or declines; on a page Each reads whole, Lookup of
// any fingerprint gives Each's offsets for it, as the binary search over
// the restarts does, however often the page is looked up; on any other, a
// lookup is an error or an answer, never a panic or a hang.
func FuzzDenseLookup(f *testing.F) {
	r := rand.New(rand.NewPCG(43, 7))
	for _, c := range []struct {
		fpBits, n, keys int
		size            uint64
	}{{32, 3000, 300, 1 << 30}, {40, 2000, 2000, 1 << 16}, {64, 3000, 3000, 1 << 40}, {64, 500, 20, 1 << 20}} {
		recs := fullRecords(r, c.n, c.fpBits, c.keys, c.size)
		sink := &pagesSink{}
		p := NewDensePacker(sink, nil, c.fpBits, uint64(len(recs)), c.size)
		for _, rc := range recs {
			if err := p.add(rc.fp<<p.Shift, rc.off); err != nil {
				f.Fatal(err)
			}
		}
		if err := p.flush(); err != nil {
			f.Fatal(err)
		}
		for _, pg := range sink.pages {
			f.Add(pg, uint8(c.fpBits-32), uint8(p.width-1), recs[r.IntN(len(recs))].fp)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, fpBits, width uint8, fp uint64) {
		page := make([]byte, PageSize)
		copy(page, data)
		crcpage.Seal(page)
		F, w := 32+int(fpBits)%33, 1+int(width)%63
		d, err := OpenDensePage(page, uint64(binary.LittleEndian.Uint32(page[densePageNo:])), F, w)
		if err != nil {
			return
		}
		checkHeads(t, d) // pages of any bytes: a run may be bad
		type run struct {
			fp   uint64
			offs []uint64
		}
		var runs []run
		whole := d.Each(func(fp uint64, offs []uint64) error {
			runs = append(runs, run{fp, slices.Clone(offs)})
			return nil
		}) == nil
		mask := ^uint64(0) >> uint(64-F)
		probes := []uint64{fp & mask, 0, mask, d.first, d.first - 1}
		for _, rn := range runs {
			probes = append(probes, rn.fp-1, rn.fp, rn.fp+1)
		}
		cached := d // looked up again and again: its last restart read once
		for _, x := range probes {
			x &= mask
			fresh := d
			got, more, err := fresh.Lookup(x, nil)
			again, amore, aerr := cached.Lookup(x, nil)
			if !slices.Equal(got, again) || more != amore || (err == nil) != (aerr == nil) {
				t.Fatalf("Lookup(%#x) = %v, %v, %v on a fresh page, %v, %v, %v on one looked up before", x, got, more, err, again, amore, aerr)
			}
			if !whole {
				continue
			}
			var want []uint64
			wantMore := len(runs) > 0 && x > runs[len(runs)-1].fp
			for i, rn := range runs {
				if rn.fp == x {
					want, wantMore = rn.offs, i == len(runs)-1 && d.more
				}
			}
			if err != nil || !slices.Equal(got, want) || more != wantMore {
				t.Fatalf("Lookup(%#x) = %v, %v, %v; the page read whole has %v, %v", x, got, more, err, want, wantMore)
			}
			pgot, pmore, perr := plainLookup(&d, x, nil)
			if perr != nil || !slices.Equal(pgot, want) || pmore != wantMore {
				t.Fatalf("plain Lookup(%#x) = %v, %v, %v; the page read whole has %v, %v", x, pgot, pmore, perr, want, wantMore)
			}
			if j, err := d.restartBefore(d.reader(), x); err != nil || j != binaryRestart(d, x) {
				t.Fatalf("restartBefore(%#x) = %d, %v; a binary search finds %d", x, j, err, binaryRestart(d, x))
			}
		}
	})
}

// fullRecords returns n records of fingerprints of fpBits bits (64
// included) spread over their whole range, over keys of which some are
// heavy, sorted, at distinct offsets below size.
func fullRecords(r *rand.Rand, n, fpBits, keys int, size uint64) []denseRec {
	fps := make([]uint64, keys)
	for i := range fps {
		fps[i] = r.Uint64() >> uint(64-fpBits)
	}
	fps[0] = ^uint64(0) >> uint(64-fpBits) // the largest
	return keyRecords(r, n, size, keys, func(k int) uint64 { return fps[k] })
}

// checkHeads walks d's runs as Each does, up to the first error, which it
// returns, and checks readHeadFast against readHead at every run that is
// neither the first nor a restart: the same fingerprint, count and
// position when it reads the head, the reader unmoved when it declines. It
// returns how many heads readHeadFast read, of how many.
func checkHeads(t *testing.T, d DensePage) (fast, heads int, _ error) {
	t.Helper()
	r := d.reader()
	var prev uint64
	for i := range d.runs {
		if i%restartEvery != 0 {
			heads++
			f, slow := *r, *r
			fp, n, ok := d.readHeadFast(&f, prev)
			wfp, wn, err := d.readHead(&slow, i, prev)
			switch {
			case !ok && f.pos != r.pos:
				t.Fatalf("run %d: readHeadFast declined and moved the reader", i)
			case ok && (err != nil || fp != wfp || n != wn || f.pos != slow.pos):
				t.Fatalf("run %d: readHeadFast %#x, %d at bit %d; readHead %#x, %d at bit %d, %v", i, fp, n, f.pos, wfp, wn, slow.pos, err)
			case ok:
				fast++
			}
		}
		var err error
		if prev, _, err = d.readRun(r, i, prev, nil); err != nil {
			return fast, heads, err
		}
	}
	return fast, heads, nil
}

// plainLookup is Lookup as it was before restartBefore and readHeadFast:
// a binary search over the restarts, then every run read whole.
func plainLookup(d *DensePage, fp uint64, dst []uint64) (_ []uint64, more bool, _ error) {
	r := d.reader()
	lo, hi := 0, d.restarts()
	for lo < hi {
		mid := (lo + hi + 1) / 2
		r.pos = d.restartPos(mid)
		if f := r.raw(d.fpBits); r.bad {
			return dst, false, fmt.Errorf("restart %d beyond the stream", mid)
		} else if f <= fp {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	start, end := lo*restartEvery, min((lo+1)*restartEvery, d.runs)
	r = d.reader()
	if lo > 0 {
		r.pos = d.restartPos(lo)
	}
	var prev uint64
	for i := start; i < end; i++ {
		n := len(dst)
		got, out, err := d.readRun(r, i, prev, dst)
		if err != nil {
			return dst[:n], false, err
		}
		switch {
		case got == fp:
			return out, i == d.runs-1 && d.more, nil
		case got > fp:
			return dst[:n], false, nil
		}
		dst, prev = out[:n], got
	}
	if end < d.runs {
		if r.pos != d.restartPos(lo+1) {
			return dst, false, fmt.Errorf("restart %d misplaced", lo+1)
		}
		return dst, false, nil
	}
	return dst, true, nil
}
