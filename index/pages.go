package index

import (
	"cmp"
	"slices"

	"github.com/csvidx/csvidx/format"
)

// A ByteRange is Len bytes of a file from offset Off.
type ByteRange struct {
	Off, Len int64
}

// PageRanges returns the byte ranges of the main index file that lookups
// of keys read besides its header page, sorted and merged: for each key,
// the record page the fence names for its fingerprint, the pages after it
// whose first key is not above the fingerprint (a heavy key's run goes on
// there), and one page more, against which a run's end is checked. Without
// a usable fence, or in format 1, it is all the record pages: a lookup
// then searches the index. A reader of an index fetched in part (a remote
// one) fetches these before the lookups, in one round trip; a page it did
// not fetch fails its checksum, never gives a wrong row.
func (ix *Index) PageRanges(keys [][]byte) []ByteRange {
	p := ix.main
	pages := int64(p.h.Pages)
	if pages == 0 {
		return nil
	}
	if !p.h.Dense() || p.fence == nil || ix.noFence {
		return []ByteRange{{format.PageSize, format.PageSize * pages}}
	}
	rs := make([]ByteRange, 0, len(keys))
	for _, key := range keys {
		k := p.searchKey(ix.hash(key))
		first := p.fence.Find(k)
		last := first
		for last+1 < p.fence.Pages() && p.fence.Entry(last+1) <= k {
			last++
		}
		last = min(last+1, uint64(pages-1))
		rs = append(rs, ByteRange{format.PageSize * (1 + int64(first)), format.PageSize * int64(last-first+1)})
	}
	slices.SortFunc(rs, func(a, b ByteRange) int { return cmp.Compare(a.Off, b.Off) })
	merged := rs[:0]
	for _, r := range rs {
		if k := len(merged); k > 0 && r.Off <= merged[k-1].Off+merged[k-1].Len {
			merged[k-1].Len = max(merged[k-1].Len, r.Off+r.Len-merged[k-1].Off)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}
