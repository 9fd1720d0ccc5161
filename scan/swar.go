package scan

import (
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
