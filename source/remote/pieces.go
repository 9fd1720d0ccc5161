package remote

import (
	"cmp"
	"slices"
	"sync"
)

// pieceCache keeps bytes of an object read for the reads to come, found
// by offset; past its limit, the pieces kept longest go first.
type pieceCache struct {
	mu     sync.Mutex
	pieces []piece // sorted by off once sorted is true
	sorted bool
	seq    int64
	kept   int64
	limit  int64
}

// A piece is bytes of an object from offset off; seq orders the pieces by
// when they were kept.
type piece struct {
	off int64
	b   []byte
	seq int64
}

// find returns the bytes [off, end) from a piece that holds them all, if
// there is one.
func (c *pieceCache) find(off, end int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sorted {
		slices.SortFunc(c.pieces, func(a, b piece) int { return cmp.Compare(a.off, b.off) })
		c.sorted = true
	}
	i, _ := slices.BinarySearchFunc(c.pieces, off+1, func(p piece, t int64) int { return cmp.Compare(p.off, t) })
	for j := i - 1; j >= 0 && j >= i-8; j-- { // the pieces that start at or before off, the nearest first
		if p := c.pieces[j]; p.off+int64(len(p.b)) >= end {
			return p.b[off-p.off : end-p.off], true
		}
	}
	return nil, false
}

// add keeps b, the bytes at off, dropping the pieces kept longest past the
// limit.
func (c *pieceCache) add(off int64, b []byte) {
	if len(b) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.pieces = append(c.pieces, piece{off, b, c.seq})
	c.sorted = false
	c.kept += int64(len(b))
	if c.kept <= c.limit || len(c.pieces) == 1 {
		return
	}
	slices.SortFunc(c.pieces, func(a, b piece) int { return cmp.Compare(a.seq, b.seq) })
	drop := 0
	for drop < len(c.pieces)-1 && c.kept > c.limit {
		c.kept -= int64(len(c.pieces[drop].b))
		drop++
	}
	c.pieces = slices.Delete(c.pieces, 0, drop)
}

// reset drops every piece.
func (c *pieceCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pieces, c.kept, c.sorted = nil, 0, true
}
