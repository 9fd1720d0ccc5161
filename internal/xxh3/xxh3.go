// Package xxh3 computes XXH3-64, the 64-bit XXH3 hash with seed 0 and the
// default secret, bit for bit as the reference implementation (and
// github.com/zeebo/xxh3, which the tests compare it with) does.
//
// csvidx hashes keys, and checksums of the CSV and of its own files, with
// XXH3-64. This package exists for start-up time, not speed: zeebo/xxh3
// picks its vector code through github.com/klauspost/cpuid, whose package
// initialisation (CPUID instructions, which a virtual machine traps) took
// 0.41 ms of every csvidx process here, a seventh of a lookup. Keys of up
// to 16 bytes hash about as fast as with zeebo/xxh3 (4.1 ns against
// 3.7–4.3); 17 to 128 bytes a quarter slower (36 bytes: 7.5 ns against
// 6.0); 129 to 240 bytes about 1.5 times slower (200 bytes: 23 ns against
// 15; reading the secret as precomputed words halved it); longer inputs in
// a scalar loop at about 5 GB/s, an eighth of the AVX2 code's speed, spent
// on a few hundred KiB at most per lookup.
package xxh3

import (
	"encoding/binary"
	"math/bits"
)

const (
	prime32_1 = 0x9E3779B1
	prime32_2 = 0x85EBCA77
	prime32_3 = 0xC2B2AE3D
	prime64_1 = 0x9E3779B185EBCA87
	prime64_2 = 0xC2B2AE3D27D4EB4F
	prime64_3 = 0x165667B19E3779F9
	prime64_4 = 0x85EBCA77C2B2AE63
	prime64_5 = 0x27D4EB2F165667C5
	primeMx1  = 0x165667919E3779F9
	primeMx2  = 0x9FB21C651E98DF25
)

// secret is XXH3's default secret (kSecret): 192 bytes.
var secret = [192]byte{
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
}

func u32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func u64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// sec returns the secret's 64-bit word at byte offset off.
func sec(off int) uint64 { return u64(secret[off:]) }

// The secret's words that the short inputs use, combined once.
var (
	flip0  = sec(56) ^ sec(64)                               // empty input
	flip3  = uint64(u32(secret[0:]) ^ u32(secret[4:]))       // 1 to 3 bytes
	flip8  = sec(8) ^ sec(16)                                // 4 to 8 bytes
	flip16 = [2]uint64{sec(24) ^ sec(32), sec(40) ^ sec(48)} // 9 to 16 bytes
)

// Hash returns the XXH3-64 hash of b.
func Hash(b []byte) uint64 {
	n := len(b)
	switch {
	case n > 240:
		return hashLong(b)
	case n > 128:
		return hash240(b)
	case n > 16:
		return hash128(b)
	case n > 8: // the short cases are here, not in functions: one call per key
		lo := u64(b) ^ flip16[0]
		hi := u64(b[n-8:]) ^ flip16[1]
		return avalanche(uint64(n) + bits.ReverseBytes64(lo) + hi + fold(lo, hi))
	case n >= 4:
		x := uint64(u32(b[n-4:])) | uint64(u32(b))<<32
		return rrmxmx(x^flip8, uint64(n))
	case n > 0:
		c := uint32(b[0])<<16 | uint32(b[n>>1])<<24 | uint32(b[n-1]) | uint32(n)<<8
		return avalanche64(uint64(c) ^ flip3)
	}
	return avalanche64(flip0)
}

// The secret as 64-bit words, for the 17 to 240 byte inputs: words[k] is
// the word at byte offset 8k, words3[k] at 8k+3, and last240 the two words
// at 119, which the last round of a 129 to 240 byte input takes.
var (
	words, words3 = secretWords()
	last240       = [2]uint64{sec(119), sec(127)}
)

func secretWords() (w [24]uint64, w3 [16]uint64) {
	for k := range w {
		w[k] = sec(8 * k)
	}
	for k := range w3 {
		w3[k] = sec(8*k + 3)
	}
	return w, w3
}

// mix mixes 16 bytes of input, as two words, with two words of the secret.
func mix(lo, hi, s0, s1 uint64) uint64 { return fold(lo^s0, hi^s1) }

func hash128(b []byte) uint64 {
	n := len(b)
	acc := uint64(n) * prime64_1
	w := &words
	if n > 32 {
		if n > 64 {
			if n > 96 {
				acc += mix(u64(b[48:]), u64(b[56:]), w[12], w[13]) + mix(u64(b[n-64:]), u64(b[n-56:]), w[14], w[15])
			}
			acc += mix(u64(b[32:]), u64(b[40:]), w[8], w[9]) + mix(u64(b[n-48:]), u64(b[n-40:]), w[10], w[11])
		}
		acc += mix(u64(b[16:]), u64(b[24:]), w[4], w[5]) + mix(u64(b[n-32:]), u64(b[n-24:]), w[6], w[7])
	}
	acc += mix(u64(b), u64(b[8:]), w[0], w[1]) + mix(u64(b[n-16:]), u64(b[n-8:]), w[2], w[3])
	return avalanche(acc)
}

func hash240(b []byte) uint64 {
	n := len(b)
	b = b[:n:n]
	_ = b[128] // n > 128: the first eight rounds are in range
	w := &words
	acc := uint64(n) * prime64_1
	acc += mix(u64(b[0:]), u64(b[8:]), w[0], w[1])
	acc += mix(u64(b[16:]), u64(b[24:]), w[2], w[3])
	acc += mix(u64(b[32:]), u64(b[40:]), w[4], w[5])
	acc += mix(u64(b[48:]), u64(b[56:]), w[6], w[7])
	acc += mix(u64(b[64:]), u64(b[72:]), w[8], w[9])
	acc += mix(u64(b[80:]), u64(b[88:]), w[10], w[11])
	acc += mix(u64(b[96:]), u64(b[104:]), w[12], w[13])
	acc += mix(u64(b[112:]), u64(b[120:]), w[14], w[15])
	acc = avalanche(acc)
	w3 := &words3
	for i := 8; i < n/16; i++ {
		k := 2 * (i - 8)
		acc += mix(u64(b[16*i:]), u64(b[16*i+8:]), w3[k&15], w3[(k+1)&15])
	}
	acc += mix(u64(b[n-16:]), u64(b[n-8:]), last240[0], last240[1])
	return avalanche(acc)
}

// fold multiplies to 128 bits and folds the halves together.
func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= primeMx1
	return h ^ h>>32
}

func avalanche64(h uint64) uint64 {
	h ^= h >> 33
	h *= prime64_2
	h ^= h >> 29
	h *= prime64_3
	return h ^ h>>32
}

func rrmxmx(h, n uint64) uint64 {
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= primeMx2
	h ^= h>>35 + n
	h *= primeMx2
	return h ^ h>>28
}
