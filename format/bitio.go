package format

import (
	"encoding/binary"
	"math/bits"
)

// The record pages of format 2 hold a stream of bits, least significant
// first: bit i of the stream is bit i%8 of byte i/8. Numbers are written in
// three ways: raw (a fixed number of bits), Elias gamma (a count, see
// gamma) and Rice with an escape (a gap, see rice).

// bitWriter writes a bit stream into buf, which must be zero where it
// writes.
type bitWriter struct {
	buf []byte
	n   int // bits written
}

// raw writes the low width bits of v (width <= 64): a word or two at a
// time, or, within 16 bytes of buf's end, a byte at a time.
func (w *bitWriter) raw(v uint64, width int) {
	if width < 64 {
		v &= 1<<uint(width) - 1
	}
	at, shift := w.n>>3, uint(w.n&7)
	if at+16 <= len(w.buf) {
		le := binary.LittleEndian
		le.PutUint64(w.buf[at:], le.Uint64(w.buf[at:])|v<<shift)
		if int(shift)+width > 64 {
			le.PutUint64(w.buf[at+8:], le.Uint64(w.buf[at+8:])|v>>(64-shift))
		}
		w.n += width
		return
	}
	for width > 0 {
		byteAt, shift := w.n>>3, w.n&7
		take := min(width, 8-shift)
		w.buf[byteAt] |= byte(v&(1<<take-1)) << shift
		v >>= take
		width -= take
		w.n += take
	}
}

// lows writes the low l bits of each of vs (l < 64), gathering them in a
// word before writing it.
func (w *bitWriter) lows(vs []uint64, l int) {
	if l == 0 {
		return
	}
	mask := uint64(1)<<uint(l) - 1
	var acc uint64
	n := 0
	for _, v := range vs {
		if n+l > 64 {
			w.raw(acc, n)
			acc, n = 0, 0
		}
		acc |= (v & mask) << uint(n)
		n += l
	}
	w.raw(acc, n)
}

// one writes a one bit.
func (w *bitWriter) one() {
	w.buf[w.n>>3] |= 1 << uint(w.n&7)
	w.n++
}

// gammaLen returns the bits gamma writes for n >= 1.
func gammaLen(n uint64) int { return 2*bits.Len64(n) - 1 }

// gamma writes n >= 1 in Elias gamma: as many zeros as n has bits below its
// top one, a one (the top bit), then those bits.
func (w *bitWriter) gamma(n uint64) {
	b := bits.Len64(n) - 1
	w.n += b // zeros: buf is zero here
	w.one()
	w.raw(n, b) // the bits below the top one
}

// riceEscape is the most zeros a Rice code starts with: a quotient that
// large is written raw instead (see rice).
const riceEscape = 32

// riceLen returns the bits rice writes for x with parameter k, where raw
// values take width bits.
func riceLen(x uint64, k, width int) int {
	if q := x >> uint(k); q < riceEscape {
		return int(q) + 1 + k
	}
	return riceEscape + width
}

// rice writes x with parameter k: the quotient x>>k as that many zeros and
// a one, then the low k bits; a quotient of riceEscape or more as
// riceEscape zeros and x raw in width bits, so that no code is longer than
// riceEscape+width bits however far x is from what k expects.
func (w *bitWriter) rice(x uint64, k, width int) {
	if q := x >> uint(k); q < riceEscape {
		w.n += int(q)
		w.one()
		w.raw(x, k)
		return
	}
	w.n += riceEscape
	w.raw(x, width)
}

// bitReader reads a bit stream of n bits from buf. A read past the end
// sets bad and returns zeros; the caller checks bad once it is done.
type bitReader struct {
	buf []byte
	n   int // bits in the stream
	pos int // the next bit to read
	bad bool
}

// peek returns the next 57 or more bits of buf from pos (zeros past its
// end), in the low bits.
func (r *bitReader) peek() uint64 {
	byteAt := r.pos >> 3
	var v uint64
	if byteAt+8 <= len(r.buf) {
		v = binary.LittleEndian.Uint64(r.buf[byteAt:])
	} else {
		var b [8]byte
		if byteAt < len(r.buf) {
			copy(b[:], r.buf[byteAt:])
		}
		v = binary.LittleEndian.Uint64(b[:])
	}
	return v >> uint(r.pos&7)
}

// skip moves past n bits.
func (r *bitReader) skip(n int) {
	r.pos += n
	if r.pos > r.n {
		r.bad = true
	}
}

// raw reads width bits (width <= 64).
func (r *bitReader) raw(width int) uint64 {
	if width > 56 {
		lo := r.raw(32)
		return lo | r.raw(width-32)<<32
	}
	v := r.peek() & (1<<uint(width) - 1)
	r.skip(width)
	return v
}

// zeros reads zero bits up to the next one, and the one, and returns how
// many zeros there were; more than most is an error.
func (r *bitReader) zeros(most int) int {
	start := r.pos
	for {
		if v := r.peek(); v != 0 {
			z := r.pos - start + bits.TrailingZeros64(v)
			r.pos = start
			if z > most {
				r.bad = true
				return 0
			}
			r.skip(z + 1)
			return z
		}
		r.pos += 56 // peek gives at least 57 bits, all zero here
		if r.pos-start > most || r.pos > r.n {
			r.pos, r.bad = start, true
			return 0
		}
	}
}

// gamma reads a number written by bitWriter.gamma.
func (r *bitReader) gamma() uint64 {
	b := r.zeros(63)
	return 1<<uint(b) | r.raw(b)
}

// rice reads a number written by bitWriter.rice with the same k and width.
func (r *bitReader) rice(k, width int) uint64 {
	v := r.peek() // 57 bits or more: the escape's zeros and the one after any shorter quotient
	if v&(1<<riceEscape-1) == 0 {
		r.skip(riceEscape)
		return r.raw(width)
	}
	q := bits.TrailingZeros64(v)
	r.skip(q + 1)
	return uint64(q)<<uint(k) | r.raw(k)
}
