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
	last   uint64 // the last restart's fingerprint, once read (see restartBefore)
	lastOK bool   // last has been read
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
	fp, n, err := d.readHead(r, i, prev)
	if err != nil {
		return 0, dst, err
	}
	dst, err = d.readOffsets(r, i, n, dst)
	return fp, dst, err
}

// readHead reads the fingerprint and the count of run i of the page at
// r's position, after a run of fingerprint prev (i > 0).
func (d *DensePage) readHead(r *bitReader, i int, prev uint64) (fp uint64, n int, _ error) {
	fp = d.first
	switch {
	case i == 0:
	case i%restartEvery == 0:
		fp = r.raw(d.fpBits)
	default:
		fp = prev + 1 + r.rice(d.rice, d.fpBits)
	}
	c := r.gamma()
	if r.bad || c > uint64(d.rows) || i > 0 && (fp <= prev || fp>>uint(d.fpBits) != 0) {
		return 0, 0, fmt.Errorf("run %d: fingerprint %#x after %#x, %d rows", i, fp, prev, c)
	}
	return fp, int(c), nil
}

// readHeadFast is readHead for a run that is neither the page's first nor
// a restart, from one load of the stream, when its Rice code and its
// count's gamma code both lie in the 57 bits a load gives, as they nearly
// always do. ok is false, and r has not moved, when they do not, or when
// the run is not what readHead accepts: readHead then reads it (and says
// what is wrong).
func (d *DensePage) readHeadFast(r *bitReader, prev uint64) (fp uint64, n int, ok bool) {
	v := r.peek()
	if v&(1<<riceEscape-1) == 0 {
		return 0, 0, false // an escape: the delta is written raw
	}
	q := bits.TrailingZeros64(v)
	used := q + 1 + d.rice
	if used >= 57 {
		return 0, 0, false
	}
	delta := uint64(q)<<uint(d.rice) | v>>uint(q+1)&(1<<uint(d.rice)-1)
	v >>= uint(used)
	b := bits.TrailingZeros64(v) // 64 when no one is left in v
	if used += 2*b + 1; used > 57 || r.pos+used > r.n {
		return 0, 0, false
	}
	c := uint64(1)<<uint(b) | v>>uint(b+1)&(1<<uint(b)-1)
	fp = prev + 1 + delta
	if c > uint64(d.rows) || fp <= prev || fp>>uint(d.fpBits) != 0 {
		return 0, 0, false
	}
	r.pos += used
	return fp, int(c), true
}

// readOffsets reads the n offsets of run i at r's position (after its
// head) and appends them to dst.
func (d *DensePage) readOffsets(r *bitReader, i, n int, dst []uint64) ([]uint64, error) {
	if n == 1 {
		dst = append(dst, r.raw(d.width))
	} else {
		var err error
		if dst, err = d.readEF(r, n, dst); err != nil {
			return dst, fmt.Errorf("run %d: %w", i, err)
		}
	}
	if r.bad {
		return dst, fmt.Errorf("run %d runs past the stream", i)
	}
	return dst, nil
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
	r := d.reader()
	lo, err := d.restartBefore(r, fp)
	if err != nil {
		return dst, false, err
	}
	start, end := lo*restartEvery, min((lo+1)*restartEvery, d.runs)
	r = d.reader()
	if lo > 0 {
		r.pos = d.restartPos(lo)
	}
	var prev uint64
	for i := start; i < end; i++ {
		got, n, ok := uint64(0), 0, false
		var err error
		if i%restartEvery != 0 {
			got, n, ok = d.readHeadFast(r, prev)
		}
		if !ok {
			got, n, err = d.readHead(r, i, prev)
		}
		switch {
		case err != nil:
			return dst, false, err
		case got == fp:
			out, err := d.readOffsets(r, i, n, dst)
			return out, i == d.runs-1 && d.more && err == nil, err
		case got > fp:
			return dst, false, nil
		case n == 1: // a run before fp's: past its offset
			r.skip(d.width)
		default:
			out, err := d.readOffsets(r, i, n, dst)
			if err != nil {
				return dst, false, err
			}
			dst = out[:len(dst)] // read past; its room kept for the next run's
		}
		prev = got
	}
	if r.bad {
		return dst, false, fmt.Errorf("run %d runs past the stream", end-1)
	}
	if end < d.runs {
		if r.pos != d.restartPos(lo+1) {
			return dst, false, fmt.Errorf("restart %d at bit %d, the stream's run is at %d", lo+1, d.restartPos(lo+1), r.pos)
		}
		return dst, false, nil // the next restart's fingerprint is beyond fp
	}
	return dst, true, nil
}

// restartBefore returns the last restart whose fingerprint is at most fp,
// or 0 (the page's first run) when there is none. Fingerprints are hashes,
// spread evenly: it guesses the restart from where fp lies between the
// first run's fingerprint and the last restart's, then steps to it, which
// reads two or three restarts where a binary search reads six.
func (d *DensePage) restartBefore(r *bitReader, fp uint64) (int, error) {
	n := d.restarts()
	if n == 0 || fp < d.first {
		return 0, nil
	}
	at := func(j int) (uint64, error) {
		r.pos = d.restartPos(j)
		if f := r.raw(d.fpBits); !r.bad {
			return f, nil
		}
		return 0, fmt.Errorf("restart %d at bit %d, beyond the stream's %d", j, d.restartPos(j), d.nbits)
	}
	if !d.lastOK {
		f, err := at(n)
		if err != nil {
			return n, err
		}
		d.last, d.lastOK = f, true
	}
	last := d.last
	if fp >= last {
		return n, nil
	}
	j := 0 // restart j is at most fp, restart j+1 is beyond it, restart n is
	if last > d.first {
		j = min(n-1, int(float64(fp-d.first)/float64(last-d.first)*float64(n)))
	}
	for j > 0 { // down to the last at most fp
		f, err := at(j)
		if err != nil {
			return 0, err
		}
		if f <= fp {
			break
		}
		j--
	}
	for j+1 < n { // up to it
		f, err := at(j + 1)
		if err != nil {
			return 0, err
		}
		if f > fp {
			break
		}
		j++
	}
	return j, nil
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
