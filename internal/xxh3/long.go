package xxh3

// Inputs over 240 bytes are cut into stripes of 64 bytes, each mixed into
// eight accumulators with the secret at a moving offset; every 16 stripes
// (a block) the accumulators are scrambled. The last stripe is always the
// input's last 64 bytes, taken with its own secret offset, and only
// stripes followed by more input are accumulated before it.

const (
	stripe          = 64
	stripesPerBlock = (len(secret) - stripe) / 8 // 16
	block           = stripe * stripesPerBlock   // 1024
	lastStripeSec   = len(secret) - stripe - 7
	scrambleSec     = len(secret) - stripe
	mergeSec        = 11
)

// accs are the eight accumulators of a long input.
type accs [8]uint64

func newAccs() accs {
	return accs{prime32_3, prime64_1, prime64_2, prime64_3, prime64_4, prime32_2, prime64_5, prime32_1}
}

// stripe mixes one stripe of input (64 bytes) into the accumulators, with
// the secret at byte offset off.
func (a *accs) stripe(in []byte, off int) {
	in = in[:stripe]
	s := secret[off : off+stripe]
	for i := 0; i < 8; i += 2 {
		v0, v1 := u64(in[8*i:]), u64(in[8*i+8:])
		k0, k1 := v0^u64(s[8*i:]), v1^u64(s[8*i+8:])
		a[i+1] += v0
		a[i] += uint64(uint32(k0)) * (k0 >> 32)
		a[i] += v1
		a[i+1] += uint64(uint32(k1)) * (k1 >> 32)
	}
}

// scramble ends a block.
func (a *accs) scramble() {
	for i := range a {
		h := a[i]
		h ^= h >> 47
		h ^= sec(scrambleSec + 8*i)
		a[i] = h * prime32_1
	}
}

// stripes mixes the whole stripes of in into the accumulators, done being
// the number of stripes of the current block already mixed in; it returns
// the new number.
func (a *accs) stripes(in []byte, done int) int {
	for ; len(in) >= stripe; in = in[stripe:] {
		a.stripe(in, 8*done)
		if done++; done == stripesPerBlock {
			a.scramble()
			done = 0
		}
	}
	return done
}

// merge returns the hash of an input of n bytes whose last stripe is mixed
// in.
func (a *accs) merge(n uint64) uint64 {
	h := n * prime64_1
	for i := 0; i < 4; i++ {
		h += fold(a[2*i]^sec(mergeSec+16*i), a[2*i+1]^sec(mergeSec+16*i+8))
	}
	return avalanche(h)
}

func hashLong(b []byte) uint64 {
	a := newAccs()
	n := len(b)
	full := (n - 1) / stripe * stripe // the stripes followed by more input
	a.stripes(b[:full], 0)
	a.stripe(b[n-stripe:], lastStripeSec)
	return a.merge(uint64(n))
}
