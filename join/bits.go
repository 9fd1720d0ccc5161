package join

import (
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/tmpfile"
)

// rowBits marks RIGHT's rows, for --right and --full, by their offsets in
// the part of RIGHT its index covers, from its first data row: a bit per
// gap bytes. Two rows that have a key start at least gap bytes apart (each
// holds a field per column up to its key's last, and a terminator), so no
// two share a bit; a row without a key may share one, and is never looked
// up (it cannot have been matched). Workers set bits at once: atomically.
//
// The bitmap takes 1/(8*gap) of the covered bytes: 1/16 of RIGHT for a key
// in its first column. Up to the join's memory limit it lives in memory
// (pages the join never touches cost nothing); past it, in an unnamed
// temporary file, mapped, whose blocks are allocated first so that a full
// disk is an error before the join starts. A bit per row would take less,
// but a row's number is not in the index: finding it would cost a search
// per matched row, or a sort of the matched rows, against one bit here.
type rowBits struct {
	start, gap int
	bits       []atomic.Uint64
	m          *mapping.Map // the mapping of f, past the memory limit; nil in memory
	f          *os.File
	dir        string // where f is
	named      string // f's name, where the system could not unlink it
}

// joinBitsName names the bitmap's file where the system cannot make an
// unnamed one (see tmpfile.Create).
const joinBitsName = "csvidx-join-bits"

// newRowBits returns the bitmap of the rows that start in [start, end) of
// a CSV whose key's last column is lastCol: in memory if it takes at most
// memLimit bytes, else in a temporary file in dir.
func newRowBits(start, end, lastCol int, memLimit int64, dir string) (*rowBits, error) {
	b := &rowBits{start: start, gap: max(2, lastCol+1)}
	words := max(0, end-start)/b.gap/64 + 1
	size := int64(words) * 8
	if size <= memLimit {
		b.bits = make([]atomic.Uint64, words)
		return b, nil
	}
	f, named, err := tmpfile.Create(dir, joinBitsName)
	if err != nil {
		return nil, bitsError(dir, size, err)
	}
	b.f, b.dir, b.named = f, dir, named
	if err := tmpfile.Allocate(f, size); err != nil {
		b.close()
		return nil, bitsError(dir, size, err)
	}
	if b.m, err = mapping.Scratch(f, size); err != nil {
		b.close()
		return nil, bitsError(dir, size, err)
	}
	b.bits = unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(unsafe.SliceData(b.m.Bytes()))), words)
	return b, nil
}

// bitsError is the error for a bitmap that could not be made in dir.
func bitsError(dir string, size int64, err error) error {
	return fmt.Errorf("the bitmap of the right file's rows, %d MiB past the memory limit, in a temporary file in %s: %w", size>>20, dir, err)
}

func (b *rowBits) set(off int) {
	i := (off - b.start) / b.gap
	b.bits[i>>6].Or(1 << (i & 63))
}

func (b *rowBits) get(off int) bool {
	i := (off - b.start) / b.gap
	return b.bits[i>>6].Load()&(1<<(i&63)) != 0
}

// guard runs fn, turning a fault on the bitmap's file (an I/O error) into
// an error.
func (b *rowBits) guard(fn func() error) error {
	if b == nil || b.m == nil {
		return fn()
	}
	err := mapping.Guard(fn, b.m)
	if err == mapping.ErrFault {
		return fmt.Errorf("the bitmap of the right file's rows, a temporary file in %s, could not be read or written", b.dir)
	}
	return err
}

// close lets go of the bitmap, and of its file.
func (b *rowBits) close() error {
	if b == nil || b.f == nil {
		return nil
	}
	err := b.m.Close()
	b.bits = nil
	if cerr := b.f.Close(); err == nil {
		err = cerr
	}
	if b.named != "" {
		if rerr := os.Remove(b.named); err == nil {
			err = rerr
		}
	}
	return err
}
