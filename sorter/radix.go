package sorter

import (
	"math/bits"
	"slices"
)

const (
	memDigitBits = 10                // widest digit for ranges beyond the L2 cache: an 11-bit scatter made 100M records 30% slower, 12 bits 3x (TLB misses)
	maxDigitBits = 13                // widest digit in cache: 8192 buckets, a 64 KiB histogram
	maxBuckets   = 1 << maxDigitBits // histogram size of one level
	minDigitBits = 3                 // narrowest digit: even a 25-record range is split 8 ways
	cacheRecords = 1 << 15           // a range this small (512 KiB, the L2 cache) is split down to single records in one pass
	finalBits    = 12                // a larger range is split into pieces of about 1<<finalBits records, finished by one more pass
	insertionMax = 24                // ranges this small, and ranges split into buckets this small, finish with insertion sort
)

// Sort sorts recs by (Hash, Offset). scratch must have len >= len(recs) and must not overlap
// recs; the result ends in recs and scratch is overwritten. recs may be in any order.
// Sort allocates nothing but a 64 KiB histogram per recursion level (three for uniform
// input), and panics if scratch is too short.
func Sort(recs, scratch []Record) {
	if len(scratch) < len(recs) {
		panic("sorter.Sort: scratch is shorter than recs")
	}
	var r radix
	r.sort(recs, scratch[:len(recs)], 64, false, 0)
}

// radix holds the per-level histograms of one sort, reused across all ranges at a depth.
type radix struct {
	counts []*[maxBuckets]int // counts[depth]: histogram, then bucket ends, of the range at that depth
}

// level returns the histogram array for a recursion depth, allocating it on first use.
func (r *radix) level(depth int) *[maxBuckets]int {
	for len(r.counts) <= depth {
		r.counts = append(r.counts, new([maxBuckets]int))
	}
	return r.counts[depth]
}

// digitWidth returns the digit width for a range of n records, so that uniform hashes need as
// few passes as possible: a range that fits in the L2 cache is split to about one record
// per bucket at once, and a larger one into cache-sized pieces, in as many passes of at most
// memDigitBits as that takes (100M records: 10 bits, 5 bits, then 12 bits).
func digitWidth(n int) uint {
	w := uint(bits.Len(uint(n)))
	if n > cacheRecords {
		return min(max(w-finalBits, minDigitBits), memDigitBits)
	}
	return min(max(w, minDigitBits), maxDigitBits)
}

// sort sorts a by (Hash, Offset), using b (same length) as the other buffer. All hashes in a
// agree on every bit at position hi and above. If toB the result ends in b, else in a.
func (r *radix) sort(a, b []Record, hi uint, toB bool, depth int) {
	n := len(a)
	if n <= insertionMax {
		if toB {
			insertionSortInto(b, a)
		} else {
			insertionSortInto(a, a)
		}
		return
	}
	cnt := r.level(depth)
	var w, shift uint
	var g digitShifts
	for {
		if hi == 0 {
			sortEqualHashes(a, b, toB)
			return
		}
		w = min(digitWidth(n), hi)
		shift = hi - w
		g = newDigit(hi, w)
		clear(cnt[:1<<w])
		diff := countDigits(a, cnt, g)
		if diff == 0 {
			sortEqualHashes(a, b, toB)
			return
		}
		if cnt[g.of(a[0].Hash)] != n {
			break
		}
		// One bucket holds everything: no bit in [shift, hi) differs. Restart the digit at
		// the highest bit that does differ instead of scattering for nothing.
		hi = uint(bits.Len64(diff))
	}
	sum, biggest := 0, 0
	for d := range cnt[:1<<w] {
		c := cnt[d]
		cnt[d] = sum
		sum += c
		biggest = max(biggest, c)
	}
	scatter(b, a, cnt, g)
	if biggest <= insertionMax {
		// Every bucket is small, as at the last level of uniform input: one insertion sort
		// over the whole range finishes it. No record moves out of its bucket, so this
		// costs at most n*insertionMax moves, and mostly one comparison per record.
		if toB {
			insertionSortInto(b, b)
		} else {
			insertionSortInto(a, b)
		}
		return
	}
	// cnt[d] is now the end of bucket d in b; recurse with the roles of a and b swapped.
	start := 0
	for d := range cnt[:1<<w] {
		end := cnt[d]
		switch m := end - start; {
		case m == 0:
		case m == 1:
			if !toB {
				a[start] = b[start]
			}
		case m <= insertionMax:
			// Leaves are sorted here rather than in a call: uniform input has millions.
			if toB {
				insertionSortInto(b[start:end], b[start:end])
			} else {
				insertionSortInto(a[start:end], b[start:end])
			}
		default:
			r.sort(b[start:end], a[start:end], shift, !toB, depth+1)
		}
		start = end
	}
}

// digitShifts describes one digit: the w bits of a hash just below bit hi, bits [hi-w, hi).
// The digit of h is h<<lsh>>rsh: shifting left first drops the bits above hi, so no mask is
// needed, and the result is below 1<<w.
type digitShifts struct {
	lsh, rsh uint // 64-hi and 64-w, both below 64
}

// newDigit returns the shifts of the w bits below bit hi, for 1 <= w <= hi <= 64.
func newDigit(hi, w uint) digitShifts {
	return digitShifts{lsh: 64 - hi, rsh: 64 - w}
}

// of returns the digit of h. The masks on the shift counts tell the compiler they are below
// 64, and the final mask bounds the digit for the histogram, so neither costs a branch.
func (g digitShifts) of(h uint64) uint64 {
	return h << (g.lsh & 63) >> (g.rsh & 63) & (maxBuckets - 1)
}

// countDigits adds the histogram of g's digit over a to cnt and returns the OR of
// h^a[0].Hash over a: the bits in which some hash differs from the first.
func countDigits(a []Record, cnt *[maxBuckets]int, g digitShifts) (diff uint64) {
	if len(a) == 0 {
		return 0
	}
	h0 := a[0].Hash
	var diff1 uint64
	i := 0
	for ; i+2 <= len(a); i += 2 {
		h, h1 := a[i].Hash, a[i+1].Hash
		diff |= h ^ h0
		diff1 |= h1 ^ h0
		cnt[g.of(h)]++
		cnt[g.of(h1)]++
	}
	if i < len(a) {
		h := a[i].Hash
		diff |= h ^ h0
		cnt[g.of(h)]++
	}
	return diff | diff1
}

// scatter moves src into dst, stably, by g's digit; pos[d] is where bucket d starts in dst
// and ends up as where it ends. The loop is unrolled by two: it runs about 25% faster in
// cache, the two loads being independent.
func scatter(dst, src []Record, pos *[maxBuckets]int, g digitShifts) {
	i := 0
	for ; i+2 <= len(src); i += 2 {
		r0, r1 := src[i], src[i+1]
		d0, d1 := g.of(r0.Hash), g.of(r1.Hash)
		p0 := pos[d0]
		dst[p0] = r0
		pos[d0] = p0 + 1
		p1 := pos[d1]
		dst[p1] = r1
		pos[d1] = p1 + 1
	}
	if i < len(src) {
		r := src[i]
		d := g.of(r.Hash)
		dst[pos[d]] = r
		pos[d]++
	}
}

// sortEqualHashes orders a range whose hashes are all equal by Offset, leaving the result in b
// if toB, else in a. Ranges built by the stable scatters of a Sorter fed in Offset order are
// already sorted, so the common cost is one read pass.
func sortEqualHashes(a, b []Record, toB bool) {
	if toB {
		copy(b, a)
		a = b
	}
	if !slices.IsSortedFunc(a, compareOffset) {
		slices.SortFunc(a, compareOffset)
	}
}

// insertionSortInto sorts src by (Hash, Offset) into dst, which has the same length and is
// either src itself or does not overlap it. It is for short ranges and for ranges that are
// sorted except within short runs. The largest record so far is kept in a register, so a
// record that is already in place costs one comparison and no load of what was just stored.
func insertionSortInto(dst, src []Record) {
	if len(src) == 0 {
		return
	}
	dst = dst[:len(src)]
	last := src[0]
	dst[0] = last
	for i := 1; i < len(src); i++ {
		x := src[i]
		if !less(x, last) {
			dst[i] = x
			last = x
			continue
		}
		dst[i] = last
		j := i - 1
		for j > 0 && less(x, dst[j-1]) {
			dst[j] = dst[j-1]
			j--
		}
		dst[j] = x
	}
}
