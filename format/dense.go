package format

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/sorter"
)

// Format 2's record pages (see format.go): runs of rows whose keys share a
// fingerprint, the top F bits of the key's hash, each with the offsets of
// its rows, coded in a bit stream.
const (
	densePageNo   = 8  // the page's number p
	denseRows     = 12 // offsets on the page
	denseRuns     = 16 // runs on the page
	denseRice     = 18 // the Rice parameter of the page's fingerprint gaps
	denseFlags    = 19 // flagContinues, or zero
	denseBits     = 20 // bits in the stream
	denseStream   = 22 // where the stream starts
	restartEvery  = 16 // a run whose number on its page is a multiple of this is a restart
	restartSize   = 2  // bytes of a restart's entry, from the page's end back
	denseCapacity = 8 * (crcpage.SumOffset - denseStream)

	flagContinues = 1 // page flag: the page's last run goes on at the start of the next page
)

// FingerprintBits returns F for an index of n records: 32, or 6 more than
// n needs, so that a key absent from the index shares a fingerprint with
// a run of it (and costs rows read for nothing) in fewer than one lookup in
// 64, at any size.
func FingerprintBits(n uint64) int {
	return min(max(MinFPBits, bits.Len64(n)+6), 64)
}

// offsetBits returns W for a CSV of size bytes: the bits of its largest
// offset.
func offsetBits(size uint64) int { return max(bits.Len64(size), 1) }

// efLow returns the low bits per offset in the Elias–Fano code of n > 1
// offsets of width bits: floor(log2(2^width / n)).
func efLow(n, width int) int { return max(0, width-bits.Len(uint(n-1))) }

// offsetsLen returns the bits the offsets offs (sorted, strictly
// increasing, below 2^width) take: width for one, else Elias–Fano: the low
// bits of each, then the high parts' gaps in unary.
func offsetsLen(offs []uint64, width int) int {
	if len(offs) == 1 {
		return width
	}
	l := efLow(len(offs), width)
	return len(offs)*l + len(offs) + int(offs[len(offs)-1]>>uint(l))
}

// writeOffsets writes offs as offsetsLen counts them.
func (w *bitWriter) writeOffsets(offs []uint64, width int) {
	if len(offs) == 1 {
		w.raw(offs[0], width)
		return
	}
	l := efLow(len(offs), width)
	w.lows(offs, l)
	prev := uint64(0)
	for _, o := range offs {
		high := o >> uint(l)
		w.n += int(high - prev) // zeros: buf is zero here
		w.one()
		prev = high
	}
}

// DensePacker packs sorted (masked hash, offset) records into format 2
// record pages for a sink: a run at a time, each fingerprint's offsets
// held until its run ends or a page's worth of them has come.
type DensePacker struct {
	sink   PageSink
	fence  func(first uint64) error // takes the first key of every record page, if set
	fpBits int                      // F
	width  int                      // W
	Shift  uint                     // 64 - F: a masked hash >> shift is its fingerprint

	page    []byte
	w       bitWriter
	runs    int    // runs on the page
	rows    int    // offsets on the page
	prevFP  uint64 // the fingerprint of the page's last run
	firstFP uint64 // and of its first
	rice    int    // the page's Rice parameter
	more    bool   // the page's last run goes on on the next page
	pages   uint64
	records uint64
	gen     *xxh3.Hasher

	run  uint64   // the fingerprint being gathered
	offs []uint64 // its offsets not yet on a page
	some bool     // a run is being gathered
}

// maxPending is the most offsets of one fingerprint the packer holds: more
// than fit on a page (each takes a bit at least).
const maxPending = denseCapacity

// NewDensePacker returns a packer of records into pages for sink, for an
// index of n records of a CSV of size bytes, with fingerprints of f bits
// (FingerprintBits(n), unless a test says otherwise).
func NewDensePacker(sink PageSink, fence func(uint64) error, f int, n, size uint64) *DensePacker {
	p := &DensePacker{sink: sink, fence: fence, fpBits: f, width: offsetBits(size), Shift: uint(64 - f),
		page: make([]byte, PageSize), gen: xxh3.New()}
	// The first page expects the gaps of n fingerprints spread evenly.
	p.rice = max(0, f-bits.Len64(n))
	p.w = bitWriter{buf: p.page[denseStream:crcpage.SumOffset]}
	return p
}

// add takes the next record: hash must be masked to F bits, and (hash,
// offset) must follow the last record's in order.
func (p *DensePacker) add(hash, offset uint64) error {
	return p.AddBatch([]sorter.Record{{Hash: hash, Offset: offset}})
}

// fpLen returns the bits the fingerprint of a new run on the page takes,
// its restart entry's included.
func (p *DensePacker) fpLen(fp uint64) int {
	switch {
	case p.runs == 0:
		return 0 // the page's first key
	case p.runs%restartEvery == 0:
		return p.fpBits + 8*restartSize
	default:
		return riceLen(fp-p.prevFP-1, p.rice, p.fpBits)
	}
}

// place puts the gathered offsets on pages: all of them when the run has
// ended, else as many as fill pages (the rest wait for more).
func (p *DensePacker) place(ended bool) error {
	for len(p.offs) > 0 {
		free := denseCapacity - p.w.n - 8*restartSize*(p.runs/restartEvery)
		head := p.fpLen(p.run)
		fits := func(c int) bool { return head+gammaLen(uint64(c))+offsetsLen(p.offs[:c], p.width) <= free }
		// The largest count that fits (the length grows with the count):
		// mostly the whole run.
		lo, hi := 0, len(p.offs)
		if fits(hi) {
			lo = hi
		}
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if fits(mid) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if lo == len(p.offs) && !ended {
			return nil // the page has room for more of this run: wait for them
		}
		if lo > 0 {
			p.writeRun(p.offs[:lo])
			p.offs = p.offs[:copy(p.offs, p.offs[lo:])]
		}
		if len(p.offs) > 0 {
			p.more = lo > 0 // the rest starts the next page
			if err := p.seal(); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeRun writes a run of the gathered fingerprint with offsets offs.
func (p *DensePacker) writeRun(offs []uint64) {
	fp := p.run
	switch {
	case p.runs == 0:
		p.firstFP = fp
	case p.runs%restartEvery == 0:
		j := p.runs / restartEvery
		binary.LittleEndian.PutUint16(p.page[crcpage.SumOffset-restartSize*j:], uint16(p.w.n))
		p.w.raw(fp, p.fpBits)
	default:
		p.w.rice(fp-p.prevFP-1, p.rice, p.fpBits)
	}
	p.w.gamma(uint64(len(offs)))
	p.w.writeOffsets(offs, p.width)
	p.prevFP = fp
	p.runs++
	p.rows += len(offs)
}

// seal finishes the page being filled and hands it to the sink.
func (p *DensePacker) seal() error {
	if p.runs == 0 {
		return nil
	}
	le := binary.LittleEndian
	first := p.firstFP << p.Shift
	if p.fence != nil {
		if err := p.fence(first); err != nil {
			return fmt.Errorf("write the fence: %w", err)
		}
	}
	le.PutUint64(p.page, first)
	le.PutUint32(p.page[densePageNo:], uint32(p.pages))
	le.PutUint32(p.page[denseRows:], uint32(p.rows))
	le.PutUint16(p.page[denseRuns:], uint16(p.runs))
	p.page[denseRice] = byte(p.rice)
	if p.more {
		p.page[denseFlags] = flagContinues
	}
	le.PutUint16(p.page[denseBits:], uint16(p.w.n))
	crcpage.Seal(p.page)
	var b [4]byte
	le.PutUint32(b[:], le.Uint32(p.page[crcpage.SumOffset:]))
	p.gen.Write(b[:])
	p.pages++
	if err := p.sink.WritePage(p.pages, p.page); err != nil {
		return err
	}
	// The next page expects gaps like this one's.
	if p.runs > 1 {
		p.rice = max(0, bits.Len64((p.prevFP-p.firstFP)/uint64(p.runs-1))-1)
	}
	clear(p.page)
	p.runs, p.rows, p.more = 0, 0, false
	p.w = bitWriter{buf: p.page[denseStream:crcpage.SumOffset]}
	return nil
}

// flush places the last run and seals the last page.
func (p *DensePacker) flush() error {
	if p.some {
		if err := p.place(true); err != nil {
			return err
		}
		p.some = false
	}
	return p.seal()
}

// AddBatch takes records sorted by (masked hash, offset), continuing the
// order: a batch of the sorter's. It takes a fingerprint's records at a
// time, as add would one by one.
func (p *DensePacker) AddBatch(recs []sorter.Record) error {
	for len(recs) > 0 {
		fp := recs[0].Hash >> p.Shift
		if !p.some || fp != p.run {
			if p.some {
				if fp < p.run {
					return fmt.Errorf("index records out of order: fingerprint %#x after %#x", fp, p.run)
				}
				if err := p.place(true); err != nil {
					return err
				}
			}
			p.run, p.offs, p.some = fp, p.offs[:0], true
		}
		n := 1
		for n < len(recs) && recs[n].Hash>>p.Shift == fp && len(p.offs)+n < maxPending {
			n++
		}
		prev := uint64(0)
		if k := len(p.offs); k > 0 {
			prev = p.offs[k-1] + 1 // the least offset the next may have
		}
		for _, r := range recs[:n] {
			if r.Offset < prev {
				return fmt.Errorf("index records out of order: offset %d after %d", r.Offset, prev-1)
			}
			prev = r.Offset + 1
			p.offs = append(p.offs, r.Offset)
		}
		if (prev-1)>>uint(p.width) != 0 {
			return fmt.Errorf("offset %d beyond the CSV's %d bits", prev-1, p.width)
		}
		p.records += uint64(n)
		recs = recs[n:]
		if len(p.offs) == maxPending {
			if err := p.place(false); err != nil {
				return err
			}
		}
	}
	return nil
}

// Finish places the last run, seals the last page, completes h (records,
// pages, generation, F and W) and writes the header page.
func (p *DensePacker) Finish(h *Header) error {
	if err := p.flush(); err != nil {
		return err
	}
	h.Version, h.FPBits, h.OffBits = VersionDense, uint8(p.fpBits), uint8(p.width)
	return finishHeader(p.sink, h, p.records, p.pages, p.gen)
}
