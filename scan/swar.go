package scan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The searches below look at eight bytes at a time ("SIMD within a
// register"). For a word v, hasZero(v) sets the top bit of every byte of v
// that is zero, plus possibly some bytes above a zero byte (the subtraction
// borrows); the lowest set bit is always exact, and that is all we use.
const (
	lows  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // 0x80 in every byte
)

func hasZero(v uint64) uint64 { return (v - lows) &^ v & highs }

// index2 returns the index of the first byte at or after i that equals a or
// b, or len(data) if there is none.
func index2(data []byte, i int, a, b byte) int {
	ma, mb := lows*uint64(a), lows*uint64(b)
	for ; i+8 <= len(data); i += 8 {
		v := binary.LittleEndian.Uint64(data[i:])
		if m := hasZero(v^ma) | hasZero(v^mb); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c == a || c == b {
			return i
		}
	}
	return len(data)
}

// zeroBytes sets the top bit of exactly the bytes of v that are zero. It
// costs one operation more than hasZero and has no false positives, so
// every bit it sets can be used.
func zeroBytes(v uint64) uint64 {
	const sevens = 0x7f7f7f7f7f7f7f7f
	return ^((v&sevens + sevens) | v | sevens)
}

// nthField finds field k (0-based) of data[i:end], which holds no quote and
// no newline: the fields are simply what lies between delimiters. It
// returns the field's bounds and 0, or, if data[i:end] has fewer fields,
// the bounds of its last one and how many fields short of k that one is. It
// reads whole words past end (never past the data) and counts the
// delimiters of a word at once, so it branches per word, not per field.
func nthField(data []byte, i, end int, delim byte, k int) (start, stop, short int) {
	m := lows * uint64(delim)
	start = i
	for ; i < end && i+8 <= len(data); i += 8 {
		z := zeroBytes(binary.LittleEndian.Uint64(data[i:]) ^ m)
		if rest := end - i; rest < 8 {
			z &= 1<<(8*rest) - 1 // delimiters past end belong to another record
		}
		n := bits.OnesCount64(z)
		if n <= k { // the field starts in a later word
			if n > 0 {
				k -= n
				start = i + (63-bits.LeadingZeros64(z))>>3 + 1
			}
			continue
		}
		for ; k > 0; k-- { // the field starts after delimiter k-1 of this word
			start = i + bits.TrailingZeros64(z)>>3 + 1
			z &= z - 1
		}
		return start, i + bits.TrailingZeros64(z)>>3, 0
	}
	for ; i < end; i++ {
		if data[i] == delim {
			if k == 0 {
				return start, i, 0
			}
			k--
			start = i + 1
		}
	}
	return start, end, k
}

// indexFrom returns the index of the first byte equal to c in data[i:], or
// len(data) if there is none. It suits long searches.
func indexFrom(data []byte, i int, c byte) int {
	if j := bytes.IndexByte(data[i:], c); j >= 0 {
		return i + j
	}
	return len(data)
}
