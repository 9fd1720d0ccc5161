package xxh3

// bufSize is how much input a Hasher holds back: all of an input that may
// turn out short (240 bytes or less), and then whole stripes until more
// input shows they are not the last.
const bufSize = 256

// Hasher computes XXH3-64 of the bytes written to it, in fixed memory. Its
// zero value is not ready: use [New]. It implements io.Writer.
type Hasher struct {
	a     accs
	done  int    // stripes of the current block mixed in
	total uint64 // bytes written
	buf   [bufSize]byte
	n     int          // bytes held in buf
	prev  [stripe]byte // the last 64 bytes mixed in, for a last stripe that starts before buf
}

// New returns a Hasher with nothing written.
func New() *Hasher {
	h := new(Hasher)
	h.Reset()
	return h
}

// Reset forgets everything written.
func (h *Hasher) Reset() {
	h.a, h.done, h.total, h.n = newAccs(), 0, 0, 0
}

// Write adds p to the input. It never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	written := len(p)
	h.total += uint64(len(p))
	if h.n+len(p) <= bufSize {
		h.n += copy(h.buf[h.n:], p)
		return written, nil
	}
	// More input than buf holds: what is held is not the end, so it can be
	// mixed in; and so can p, but for its last 1 to 256 bytes.
	if h.n > 0 {
		k := copy(h.buf[h.n:], p)
		p = p[k:]
		h.mix(h.buf[:])
		h.n = 0
	}
	for len(p) > bufSize {
		h.mix(p[:bufSize])
		p = p[bufSize:]
	}
	h.n = copy(h.buf[:], p)
	return written, nil
}

// mix mixes in b, whole stripes known not to end the input.
func (h *Hasher) mix(b []byte) {
	h.done = h.a.stripes(b, h.done)
	copy(h.prev[:], b[len(b)-stripe:])
}

// Sum64 returns the hash of the bytes written so far, which it leaves as
// they are: writing may go on.
func (h *Hasher) Sum64() uint64 {
	if h.total <= bufSize { // all of it is in buf
		return Hash(h.buf[:h.n])
	}
	a := h.a
	held := h.buf[:h.n]
	a.stripes(held[:(h.n-1)/stripe*stripe], h.done)
	var last [stripe]byte
	if h.n >= stripe {
		copy(last[:], held[h.n-stripe:])
	} else { // the last stripe begins in what was mixed in already
		k := copy(last[:], h.prev[h.n:])
		copy(last[k:], held)
	}
	a.stripe(last[:], lastStripeSec)
	return a.merge(h.total)
}
