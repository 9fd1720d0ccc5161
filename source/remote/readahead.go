package remote

import (
	"context"
	"slices"
	"sync"
)

// A scan reads an object front to back in windows of megabytes, on a few
// workers, each its own part of the object. Each window read waits a round
// trip unless its bytes were asked for before: a readAhead reads the
// object in blocks of a fixed grid, and with the blocks a window needs it
// asks for the next aheadBlocks, so that a worker's next windows are on
// their way while it scans, several GETs at once.
const (
	scanWindow  = 1 << 20  // the least read that is a scan's window
	scanPiece   = 16 << 10 // the least read of a scan read through the blocks
	aheadBlock  = 4 << 20  // the grid's blocks
	aheadBlocks = 8        // blocks asked for past a window's
	aheadKeep   = 16       // blocks kept, the most lately used (64 MiB)
)

// blockBufs holds the buffers of blocks dropped, for blocks to come: a
// scan's blocks, read once each, reuse a few buffers instead of faulting
// in a new one for each 4 MiB.
var blockBufs = sync.Pool{New: func() any { return new([aheadBlock]byte) }}

// readAhead holds the blocks read and being read for a Source's windows.
type readAhead struct {
	mu     sync.Mutex
	blocks map[int64]*block // by block number
	seq    int64
	wg     sync.WaitGroup
	closed bool
}

// A block is aheadBlock bytes of the object (fewer at its end), once done
// is closed: b, or err.
type block struct {
	done    chan struct{}
	b       []byte
	buf     *[aheadBlock]byte // b's buffer, from blockBufs
	err     error
	used    int64 // when a read last needed it
	readers int   // reads copying from it now
	dropped bool  // no longer in blocks: its buffer goes back when readers is 0
}

// release puts b's buffer back in blockBufs. The caller holds mu, and b is
// done, dropped, with no readers.
func (b *block) release() {
	if b.buf != nil {
		blockBufs.Put(b.buf)
		b.buf, b.b = nil, nil
	}
}

// read reads the bytes [off, off+len(p)) of s's object from the blocks
// that hold them, asking for those missing and for the next aheadBlocks.
func (a *readAhead) read(ctx context.Context, s *Source, p []byte, off int64) (int, error) {
	end := min(off+int64(len(p)), s.o.size)
	if off >= end {
		return 0, eof(0, len(p))
	}
	first, last := off/aheadBlock, (end-1)/aheadBlock
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return 0, context.Canceled
	}
	if a.blocks == nil {
		a.blocks = map[int64]*block{}
	}
	a.seq++
	need := make([]*block, 0, last-first+1)
	for i := first; i <= last+aheadBlocks && i*aheadBlock < s.o.size; i++ {
		b := a.blocks[i]
		if b == nil {
			b = &block{done: make(chan struct{})}
			a.blocks[i] = b
			a.wg.Add(1)
			go a.fetch(s, i, b)
		}
		b.used = a.seq
		if i <= last {
			b.readers++
			need = append(need, b)
		}
	}
	a.evict(first, last+aheadBlocks)
	a.mu.Unlock()
	defer a.done(need)
	n := 0
	for k, b := range need {
		select {
		case <-b.done:
		case <-ctx.Done():
			return n, ctx.Err()
		}
		if b.err != nil {
			a.forget(first+int64(k), b) // a later read asks again
			return n, b.err
		}
		at := (first + int64(k)) * aheadBlock // the block's offset
		from := max(off, at) - at
		to := min(end, at+int64(len(b.b))) - at
		if from < to {
			n += copy(p[n:], b.b[from:to])
		}
	}
	return n, eof(n, len(p))
}

// done says that the reads of blocks need are over.
func (a *readAhead) done(need []*block) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range need {
		if b.readers--; b.readers == 0 && b.dropped {
			b.release()
		}
	}
}

// fetch reads block i of s's object into b.
func (a *readAhead) fetch(s *Source, i int64, b *block) {
	defer a.wg.Done()
	s.fetches.Add(1)
	buf := blockBufs.Get().(*[aheadBlock]byte)
	bs, err := s.o.readInto(context.Background(), i*aheadBlock, aheadBlock, buf[:])
	if err == nil {
		b.b, b.buf = bs, buf
	} else {
		blockBufs.Put(buf)
	}
	b.err = err
	close(b.done)
}

// evict drops the blocks used least lately past aheadKeep, those done and
// outside [from, to], the blocks the read at hand asked for. The caller
// holds mu.
func (a *readAhead) evict(from, to int64) {
	if len(a.blocks) <= aheadKeep {
		return
	}
	type aged struct {
		i    int64
		used int64
	}
	var done []aged
	for i, b := range a.blocks {
		select {
		case <-b.done:
			if i < from || i > to {
				done = append(done, aged{i, b.used})
			}
		default:
		}
	}
	slices.SortFunc(done, func(x, y aged) int { return int(x.used - y.used) })
	for _, d := range done {
		if len(a.blocks) <= aheadKeep {
			break
		}
		a.drop(d.i)
	}
}

// drop removes block i, whose buffer goes back to blockBufs once no read
// copies from it. The caller holds mu, and the block is done.
func (a *readAhead) drop(i int64) {
	b := a.blocks[i]
	delete(a.blocks, i)
	if b.dropped = true; b.readers == 0 {
		b.release()
	}
}

// forget drops block i when it is still b, which failed.
func (a *readAhead) forget(i int64, b *block) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.blocks[i] == b {
		a.drop(i)
	}
}

// close waits for the blocks being read, and drops them all.
func (a *readAhead) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.wg.Wait()
	a.mu.Lock()
	for i := range a.blocks {
		a.drop(i)
	}
	a.blocks = nil
	a.mu.Unlock()
}
