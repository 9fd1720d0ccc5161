package index

import "sync/atomic"

// rowBits marks RIGHT's rows by their offsets, a bit per gap bytes: two
// rows that have a key start at least gap bytes apart (each holds a field
// per column up to its key's last and a terminator, and is no blank line),
// so no two share a bit. Workers set bits at once: atomically.
type rowBits struct {
	gap  int
	bits []atomic.Uint64
}

// newRowBits returns the bitmap of the rows of a CSV of size bytes whose
// key's last column is lastCol.
func newRowBits(size, lastCol int) *rowBits {
	gap := max(2, lastCol+1)
	return &rowBits{gap: gap, bits: make([]atomic.Uint64, size/gap/64+1)}
}

func (b *rowBits) set(off int) {
	i := off / b.gap
	b.bits[i>>6].Or(1 << (i & 63))
}

func (b *rowBits) get(off int) bool {
	i := off / b.gap
	return b.bits[i>>6].Load()&(1<<(i&63)) != 0
}
