package compressed

// plainChunks is the plain bytes a stream decoded last, in chunks, in
// order of their offsets, with the buffers of the chunks it dropped, for
// the chunks to come (fresh memory faults page by page).
type plainChunks struct {
	chunks []plainChunk
	spare  [][]byte
	kept   int64 // bytes in chunks
	end    int64 // the offset after the last byte added
}

// A plainChunk is plain bytes a stream decoded, from offset off.
type plainChunk struct {
	off int64
	b   []byte
}

// add keeps b, the plain bytes at offset at, dropping the oldest chunks
// past keep bytes.
func (c *plainChunks) add(b []byte, at, keep int64) {
	c.chunks = append(c.chunks, plainChunk{at, b})
	c.kept += int64(len(b))
	c.end = at + int64(len(b))
	for c.kept-int64(len(c.chunks[0].b)) >= keep {
		c.kept -= int64(len(c.chunks[0].b))
		c.spare = append(c.spare, c.chunks[0].b)
		c.chunks[0] = plainChunk{}
		c.chunks = c.chunks[1:]
	}
}

// buffer returns a buffer to decode the next chunk into: one of those
// dropped, whose bytes no one reads any more, or a new one of n bytes.
func (c *plainChunks) buffer(n int) []byte {
	if k := len(c.spare); k > 0 {
		b := c.spare[k-1]
		c.spare = c.spare[:k-1]
		return b
	}
	return make([]byte, n)
}

// dropped reports whether the byte at off was added and is no longer
// kept.
func (c *plainChunks) dropped(off int64) bool {
	return len(c.chunks) > 0 && off < c.chunks[0].off || len(c.chunks) == 0 && off < c.end
}

// copyTo copies the kept bytes from off into p, as many as are kept.
func (c *plainChunks) copyTo(p []byte, off int64) int {
	n := 0
	for _, ch := range c.chunks {
		if n == len(p) {
			break
		}
		if ch.off+int64(len(ch.b)) <= off {
			continue
		}
		k := copy(p[n:], ch.b[off-ch.off:])
		n += k
		off += int64(k)
	}
	return n
}

// reset drops every chunk and buffer, and starts again at offset at.
func (c *plainChunks) reset(at int64) { *c = plainChunks{end: at} }
