package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/sorter"
)

// DensePage is a format 2 record page whose CRC was checked, opened for
// reading with the index's F and W.
type DensePage struct {
	page   []byte
	fpBits int
	width  int
	shift  uint
	first  uint64 // the fingerprint of the first run
	runs   int
	rows   int
	rice   int
	more   bool // the last run goes on on the next page
	nbits  int
}

// OpenDensePage checks the fields of record page no (its CRC checked) and
// returns it opened.
func OpenDensePage(page []byte, no uint64, fpBits, width int) (DensePage, error) {
	le := binary.LittleEndian
	d := DensePage{page: page, fpBits: fpBits, width: width, shift: uint(64 - fpBits),
		runs: int(le.Uint16(page[denseRuns:])), rows: int(le.Uint32(page[denseRows:])),
		rice: int(page[denseRice]), more: page[denseFlags] == flagContinues, nbits: int(le.Uint16(page[denseBits:]))}
	key := le.Uint64(page)
	d.first = key >> d.shift
	switch {
	case uint64(le.Uint32(page[densePageNo:])) != no:
		return DensePage{}, fmt.Errorf("record page %d says it is page %d", no, le.Uint32(page[densePageNo:]))
	case key != d.first<<d.shift:
		return DensePage{}, fmt.Errorf("record page %d: its first key %#x has bits below the fingerprint's %d", no, key, fpBits)
	case d.runs == 0 || d.rows < d.runs:
		return DensePage{}, fmt.Errorf("record page %d: %d runs of %d rows", no, d.runs, d.rows)
	case d.rice > fpBits || page[denseFlags]&^flagContinues != 0:
		return DensePage{}, fmt.Errorf("record page %d: Rice parameter %d, flags %#x", no, d.rice, page[denseFlags])
	case d.nbits > denseCapacity-8*restartSize*d.restarts():
		return DensePage{}, fmt.Errorf("record page %d: %d bits of stream do not fit", no, d.nbits)
	}
	return d, nil
}

// restarts returns how many runs but the first are restarts.
func (d *DensePage) restarts() int { return (d.runs - 1) / restartEvery }

// restartPos returns where restart j (1 <= j <= restarts) starts in the
// stream.
func (d *DensePage) restartPos(j int) int {
	return int(binary.LittleEndian.Uint16(d.page[crcpage.SumOffset-restartSize*j:]))
}

// reader returns a reader of the page's stream.
func (d *DensePage) reader() *bitReader {
	return &bitReader{buf: d.page[denseStream:crcpage.SumOffset], n: d.nbits}
}

// readRun reads run i of the page at r's position, after a run of
// fingerprint prev (i > 0), and appends its offsets to dst.
func (d *DensePage) readRun(r *bitReader, i int, prev uint64, dst []uint64) (uint64, []uint64, error) {
	fp := d.first
	switch {
	case i == 0:
	case i%restartEvery == 0:
		fp = r.raw(d.fpBits)
	default:
		fp = prev + 1 + r.rice(d.rice, d.fpBits)
	}
	c := r.gamma()
	if r.bad || c > uint64(d.rows) || i > 0 && (fp <= prev || fp>>uint(d.fpBits) != 0) {
		return 0, dst, fmt.Errorf("run %d: fingerprint %#x after %#x, %d rows", i, fp, prev, c)
	}
	n := int(c)
	if n == 1 {
		dst = append(dst, r.raw(d.width))
	} else {
		var err error
		if dst, err = d.readEF(r, n, dst); err != nil {
			return 0, dst, fmt.Errorf("run %d: %w", i, err)
		}
	}
	if r.bad {
		return 0, dst, fmt.Errorf("run %d runs past the stream", i)
	}
	return fp, dst, nil
}

// Each calls fn with every run of the page, in order, checking the whole
// page: the order of fingerprints and offsets, the restarts, the counts.
func (d *DensePage) Each(fn func(fp uint64, offs []uint64) error) error {
	r := d.reader()
	var prev uint64
	var offs []uint64
	rows := 0
	for i := range d.runs {
		if i > 0 && i%restartEvery == 0 && r.pos != d.restartPos(i/restartEvery) {
			return fmt.Errorf("restart %d at bit %d, the stream's run is at %d", i/restartEvery, d.restartPos(i/restartEvery), r.pos)
		}
		var err error
		if prev, offs, err = d.readRun(r, i, prev, offs[:0]); err != nil {
			return err
		}
		rows += len(offs)
		if err := fn(prev, offs); err != nil {
			return err
		}
	}
	if rows != d.rows || r.pos != d.nbits {
		return fmt.Errorf("%d rows in %d bits, the page says %d in %d", rows, r.pos, d.rows, d.nbits)
	}
	return nil
}

// Records appends the page's rows to dst as Records, in order: each
// offset with its run's fingerprint as a masked hash. It checks the page
// as each does.
func (d *DensePage) Records(dst []sorter.Record) ([]sorter.Record, error) {
	err := d.Each(func(fp uint64, offs []uint64) error {
		key := fp << d.shift
		for _, o := range offs {
			dst = append(dst, sorter.Record{Hash: key, Offset: o})
		}
		return nil
	})
	return dst, err
}

// FirstKey returns the page's first key: its first run's fingerprint as a
// masked hash.
func (d *DensePage) FirstKey() uint64 { return d.first << d.shift }

// Lookup appends to dst the offsets of the run of fingerprint fp on the
// page, if there is one, and reports whether the run may go on, or begin,
// on the next page: when it is the page's last run and the page says it
// goes on, or when fp is beyond the page's last run. It decodes at most one
// restart's runs, and checks them: their order, and that they end where the
// next restart starts.
func (d *DensePage) Lookup(fp uint64, dst []uint64) (_ []uint64, more bool, _ error) {
	// The last restart whose fingerprint is at most fp.
	r := d.reader()
	lo, hi := 0, d.restarts()
	for lo < hi {
		mid := (lo + hi + 1) / 2
		r.pos = d.restartPos(mid)
		if f := r.raw(d.fpBits); r.bad {
			return dst, false, fmt.Errorf("restart %d at bit %d, beyond the stream's %d", mid, d.restartPos(mid), d.nbits)
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
			return dst, false, fmt.Errorf("restart %d at bit %d, the stream's run is at %d", lo+1, d.restartPos(lo+1), r.pos)
		}
		return dst, false, nil // the next restart's fingerprint is beyond fp
	}
	return dst, true, nil
}

// errOffsets means a run's offsets are not increasing or not below 2^W.
var errOffsets = errors.New("offsets out of order or range")

// readEF reads n > 1 offsets in Elias–Fano code (see writeOffsets) at r's
// position and appends them to dst. The high parts' unary gaps are read a
// word at a time: each one bit found ends an offset's gap.
func (d *DensePage) readEF(r *bitReader, n int, dst []uint64) ([]uint64, error) {
	if n > r.n-r.pos { // each offset takes a bit at least: a count no stream holds
		return dst, errOffsets
	}
	l := efLow(n, d.width)
	low := *r
	r.skip(n * l)
	if r.bad {
		return dst, errOffsets
	}
	mask := uint64(1)<<uint(l) - 1
	limit := uint64(1) << uint(d.width-l) // high parts are below it
	dst = slices.Grow(dst, n)
	first := len(dst)
	var high uint64
	v, avail := r.peek(), 57 // bits of v still to look at, from its bit 0
	for k := 0; k < n; k++ {
		for v == 0 { // no one among the bits left: step past them
			high += uint64(avail)
			r.pos += avail
			if high >= limit || r.pos >= r.n {
				return dst, errOffsets
			}
			v, avail = r.peek(), 57
		}
		z := bits.TrailingZeros64(v)
		high += uint64(z)
		r.pos += z + 1
		v >>= uint(z + 1) // z < avail: the one is among the bits left
		avail -= z + 1
		if avail <= 0 {
			v, avail = r.peek(), 57
		}
		var o uint64
		if l <= 56 {
			o = high<<uint(l) | low.peek()&mask // peek gives 57 bits
			low.pos += l
		} else {
			o = high<<uint(l) | low.raw(l)
		}
		if high >= limit || k > 0 && o <= dst[len(dst)-1] {
			return dst[:first], errOffsets
		}
		dst = append(dst, o)
	}
	if r.pos > r.n {
		return dst[:first], errOffsets
	}
	return dst, nil
}
