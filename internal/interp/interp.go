// Package interp searches sorted arrays of uniformly distributed 64-bit
// hashes by interpolation, the way the index and its fence are searched.
package interp

import (
	"math"
	"math/bits"
)

const maxProbes = 8 // interpolation probes before falling back to bisection

// LowerBound returns the least i in [0, n) with at(i) >= h, or n, for an
// array that at reads and that is sorted.
//
// The values are uniform, so it interpolates: h should sit at the fraction
// of the range that it is of the range's values. Each probe reads the first
// and last elements of the block of perPage elements the estimate falls on,
// so one block (one cache and TLB miss, or one disk read when cold) either
// holds the answer or bounds the range from one side. For n elements the
// first probe lands about sqrt(n) away and the next about n^(1/4), so a
// search touches three to five blocks where a bisection touches twenty;
// repeated values, which skew the estimate, cost a probe or two more. After
// maxProbes it finishes by bisection, so the worst case stays logarithmic.
// Every step keeps at(lo-1) < h <= at(hi) for the elements it read, so the
// answer brackets h on them.
func LowerBound(n, perPage, h uint64, at func(uint64) uint64) uint64 {
	// The answer lies in [lo, hi]; elements [lo, hi) are in [hlo, hhi].
	// span is hhi-hlo+1, with 0 standing for 2^64.
	lo, hi := uint64(0), n
	hlo, hhi := uint64(0), uint64(math.MaxUint64)
	for probes := 0; hi-lo > perPage && probes < maxProbes; probes++ {
		offHi, offLo := bits.Mul64(h-hlo, hi-lo)
		pos := lo + offHi
		if span := hhi - hlo + 1; span != 0 {
			pos, _ = bits.Div64(offHi, offLo, span)
			pos += lo
		}
		first := max(lo, pos-pos%perPage)
		last := min(hi, pos-pos%perPage+perPage) - 1
		switch vf, vl := at(first), at(last); {
		case vl < h:
			lo, hlo = last+1, vl
		case vf >= h:
			hi, hhi = first, vf
		default: // vf < h <= vl: the answer is in (first, last]
			lo, hi = first+1, last
		}
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if at(mid) < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
