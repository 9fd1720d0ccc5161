package index

// Reading ahead. A lookup on a cold cache waits for storage: for the index
// page, then for its rows. These helpers make those waits overlap: the rows
// of a key are asked for (madvise WILLNEED) far ahead of the one being
// parsed, a batch of keys asks for all its index pages and then all its
// rows before reading any, and on a warm cache the rows' first bytes are
// loaded together so that their cache and TLB misses overlap.

import (
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/csvidx/csvidx/format"
)

const (
	prefetchRows = 16                  // candidate rows whose first bytes are loaded together
	coldAhead    = format.OffsetsBatch // on a cold cache, rows asked for ahead of the one being read (512)
)

// coldSearch is how long an index search takes when it went to storage; a
// variable so that tests can send every lookup down the cold path.
var coldSearch = 20 * time.Microsecond

// askRows asks the kernel to read the pages of the rows at offs[from:to]
// (madvise WILLNEED), and returns to. On a cold cache the rows
// are asked for up to coldAhead ahead of the one being read, so that the
// storage has hundreds of reads in flight, in offset order, instead of
// one page fault after another; on a warm cache those system calls would
// cost more than the lookup, so they are not made.
func (ix *Index) askRows(offs []uint64, from, to int) int {
	var buf [64]uint64
	for from < to {
		pages := buf[:0]
		for ; from < to && len(pages) < len(buf)-1; from++ {
			pages = appendRowPages(pages, offs[from])
		}
		ix.csv.mapping().WillNeed(pages)
	}
	return to
}

// appendRowPages appends to offs the offsets whose pages a lookup reads for
// the row at off: its own, and the one before when the row starts a page
// (the check that a record starts there reads the byte before it).
func appendRowPages(offs []uint64, off uint64) []uint64 {
	if off > 0 && off%osPage == 0 {
		offs = append(offs, off-1)
	}
	return append(offs, off)
}

var osPage = uint64(os.Getpagesize())

// touchRows loads the first byte of the rows at offs. The loads do not
// depend on each other, so the processor overlaps their cache and TLB
// misses, which would otherwise queue one behind each row's parse.
func (ix *Index) touchRows(offs []uint64) {
	var sum byte
	for _, off := range offs {
		if off < uint64(ix.csv.size) {
			sum += ix.csv.data[off]
		}
	}
	runtime.KeepAlive(sum)
}

// prefetch, when the index is not in memory (the first key's search took
// long), asks the kernel for the index pages of all the keys at once, then
// for all their rows at once, in offset order: a cold batch then waits for
// storage a few times instead of two or three times per key. On a warm
// cache it costs one search.
func (ix *Index) prefetch(keys [][]byte) {
	if len(keys) < 2 {
		return
	}
	start := time.Now()
	ix.main.locate(ix.hash(keys[0]))
	if time.Since(start) <= coldSearch {
		return
	}
	hashes := make([]uint64, len(keys))
	for i, k := range keys {
		hashes[i] = ix.hash(k)
	}
	var offs []uint64
	for _, p := range []*part{ix.main, ix.tail} {
		if p == nil {
			continue
		}
		p.askPages(hashes)
		for _, h := range hashes {
			err := p.offsets(h, p.locate(h), func(batch []uint64) error {
				for _, off := range batch {
					offs = appendRowPages(offs, off)
				}
				return nil
			})
			if err != nil {
				return // the lookup itself reports it
			}
		}
	}
	slices.Sort(offs)
	ix.csv.mapping().WillNeed(offs)
}
