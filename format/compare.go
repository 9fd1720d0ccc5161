package format

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/sorter"
)

// A Comparison compares the pages of a fresh build, written to it as a
// PageSink, with an index file, and describes where they differ in the
// index's own format (see Report).
type Comparison struct {
	old      []byte // the index file
	diffPage uint64 // the first record page (file page number) that differs, or 0
	diffNew  []byte // that page as the fresh build has it
	nextNew  []byte // and the page after it, if the fresh build has one
}

// NewComparison returns a Comparison of a fresh build with old, the whole
// index file.
func NewComparison(old []byte) *Comparison { return &Comparison{old: old} }

// WritePage takes page n of the fresh build, keeping the first record page
// that differs from old's and the page after it.
func (c *Comparison) WritePage(n uint64, page []byte) error {
	switch {
	case n == 0:
	case c.diffPage == 0:
		off := n * PageSize
		if off+PageSize > uint64(len(c.old)) || !bytes.Equal(c.old[off:off+PageSize], page) {
			c.diffPage, c.diffNew = n, bytes.Clone(page)
		}
	case n == c.diffPage+1:
		c.nextNew = bytes.Clone(page)
	}
	return nil
}

// Report lists how the old index of the CSV at csvPath differs from the
// fresh build.
func (c *Comparison) Report(csvPath string, old, fresh *Header) []string {
	var out []string
	diff := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: the index says %v, a fresh build %v", name, a, b))
		}
	}
	diff("scanned bytes", old.Scanned, fresh.Scanned)
	diff("rows", old.Rows, fresh.Rows)
	diff("index records", old.Records, fresh.Records)
	diff("short rows", old.ShortRows, fresh.ShortRows)
	diff("blank lines", old.Blanks, fresh.Blanks)
	diff("resume offset", old.Resume, fresh.Resume)
	diff("header record end", old.HeaderEnd, fresh.HeaderEnd)
	diff("key name", fmt.Sprintf("%q", old.KeyName), fmt.Sprintf("%q", fresh.KeyName))
	diff("checksum of the first bytes", old.HeadChecksum, fresh.HeadChecksum)
	diff("checksum of the last bytes", old.TailChecksum, fresh.TailChecksum)
	diff("fingerprint bits", old.FPBits, fresh.FPBits)
	diff("offset bits", old.OffBits, fresh.OffBits)
	first := c.diffPage
	if first == 0 && c.oldPages(old) > fresh.Pages {
		first = fresh.Pages + 1 // the index goes on past the fresh build's last page
	}
	if first != 0 {
		out = append(out, c.pageDifference(csvPath, first-1, old, fresh))
	}
	if len(out) == 0 {
		var page [PageSize]byte
		fresh.Encode(page[:])
		if !bytes.Equal(c.old[:PageSize], page[:]) {
			out = append(out, "the header page differs")
		}
	}
	return out
}

// oldPages returns how many record pages the index has: as its header
// says, within its size.
func (c *Comparison) oldPages(old *Header) uint64 {
	n := uint64(len(c.old) / PageSize)
	if n == 0 {
		return 0
	}
	return min(old.Pages, n-1)
}

// oldPage returns record page pg of the index, or nil past its last.
func (c *Comparison) oldPage(old *Header, pg uint64) []byte {
	if pg >= c.oldPages(old) {
		return nil
	}
	return c.old[PageSize*(1+pg):][:PageSize]
}

// newPage returns record page pg of the fresh build, pg being the first
// that differs or the one after it, or nil past its last.
func (c *Comparison) newPage(first, pg uint64) []byte {
	if pg == first {
		return c.diffNew
	}
	return c.nextNew
}

// pageDifference describes record page pg, the first that differs from
// the fresh build's (or that only one of them has): the index's page is
// corrupt, or, where their records first part, a row of the CSV at
// csvPath, named by its byte, that one of them has and the other has not.
// Records are compared as the index orders them, decoded in its format
// from that page and the next of each side: the pages before are equal, so
// they part on page pg, or at the first record of the next page (a page
// ends where its last run no longer fits).
func (c *Comparison) pageDifference(csvPath string, pg uint64, old, fresh *Header) string {
	if old.FPBits != fresh.FPBits || old.OffBits != fresh.OffBits {
		return fmt.Sprintf("record page %d and those after it differ: their rows are coded in other widths", pg)
	}
	olds, news := &sideRecords{from: pg}, &sideRecords{from: pg}
	if pg > 0 {
		// Both sides go on from the last record of the page before, which
		// they share: the index's order is checked from there.
		prev, err := pageRecords(nil, old, c.oldPage(old, pg-1), pg-1)
		if err == nil && len(prev) > 0 {
			olds.recs = append(olds.recs, prev[len(prev)-1])
			news.recs = append(news.recs, prev[len(prev)-1])
		}
	}
	i := len(olds.recs) // the records before i are the same
	for p := pg; p <= pg+1; p++ {
		if page := c.oldPage(old, p); page != nil {
			if !crcpage.Intact(page) {
				return fmt.Sprintf("record page %d (bytes %d to %d) is corrupt: checksum mismatch", p, PageSize*(1+p), PageSize*(2+p))
			}
			if bad := olds.add(old, page, p); bad != "" {
				return bad
			}
		}
		if page := c.newPage(pg, p); page != nil {
			news.add(fresh, page, p) // whole: the build wrote it
		}
		for ; i < min(len(olds.recs), len(news.recs)); i++ {
			if o, n := olds.recs[i], news.recs[i]; o != n {
				if RecordBefore(o, n) {
					return olds.missing(csvPath, i, fresh.Pages, true)
				}
				return news.missing(csvPath, i, c.oldPages(old), false)
			}
		}
		oldDone, newDone := p+1 >= c.oldPages(old), p+1 >= fresh.Pages
		switch {
		case i < len(news.recs) && oldDone:
			return news.missing(csvPath, i, c.oldPages(old), false)
		case i < len(olds.recs) && newDone:
			return olds.missing(csvPath, i, fresh.Pages, true)
		}
		if oldDone && newDone {
			break // both end with the same records
		}
	}
	return fmt.Sprintf("record page %d differs from a fresh build's, though not in the rows it lists", pg)
}

// sideRecords are the records of the index or of the fresh build from
// record page from on, a page at a time.
type sideRecords struct {
	from  uint64
	recs  []sorter.Record
	pages []int // where the records of each page, from from on, start in recs
}

// add decodes record page p, page, of an index with header h, and checks
// the order of its records from the record before, and that their rows
// are within the bytes the index covers. It returns what is wrong, if
// anything.
func (s *sideRecords) add(h *Header, page []byte, p uint64) string {
	n := len(s.recs)
	s.pages = append(s.pages, n)
	var err error
	if s.recs, err = pageRecords(s.recs, h, page, p); err != nil {
		return fmt.Sprintf("corrupt: %v", err)
	}
	for i := max(n, 1); i < len(s.recs); i++ {
		if !RecordBefore(s.recs[i-1], s.recs[i]) {
			if !h.Dense() {
				return fmt.Sprintf("record %d, on record page %d, does not come after the record before it: records must strictly increase", p*RecordsPerPage+uint64(i-n), p)
			}
			return fmt.Sprintf("row %d of record page %d does not come after the row before it: records must strictly increase", i-n, p)
		}
	}
	for _, r := range s.recs[n:] {
		if r.Offset < h.Base || r.Offset >= h.Scanned {
			return fmt.Sprintf("corrupt: a record of record page %d points at byte %d, outside the bytes [%d, %d) it indexes", p, r.Offset, h.Base, h.Scanned)
		}
	}
	return ""
}

// missing says that the CSV changed at the row of record i, which the
// other side, of otherPages record pages, lacks: the index's record
// (index) names a row the CSV no longer has there, the fresh build's one
// the index does not have under its key.
func (s *sideRecords) missing(csvPath string, i int, otherPages uint64, index bool) string {
	p := s.from
	for k, start := range s.pages {
		if start <= i {
			p = s.from + uint64(k)
		}
	}
	what, where := "is not indexed under its key", fmt.Sprintf("record page %d", p)
	switch {
	case index && p >= otherPages:
		where = fmt.Sprintf("a fresh build ends before record page %d", p)
	case p >= otherPages:
		where = fmt.Sprintf("the index ends before record page %d of a fresh build", p)
	}
	if index {
		what = "is not the one the index has there"
	}
	return fmt.Sprintf("the row at byte %d of %s %s: the CSV changed there or near it since the build (%s)", s.recs[i].Offset, csvPath, what, where)
}

// pageRecords appends to dst the records of record page pg, page, of an
// index with header h, decoded in its format: format 1's hashes, format
// 2's fingerprints as masked hashes, each with its row's offset. It checks
// a format 2 page whole (see DensePage.Each); the order of format 1's
// records is for the caller to check.
func pageRecords(dst []sorter.Record, h *Header, page []byte, pg uint64) ([]sorter.Record, error) {
	switch {
	case page == nil:
		return dst, nil
	case h.Dense():
		d, err := OpenDensePage(page, pg, int(h.FPBits), int(h.OffBits))
		if err != nil {
			return dst, err
		}
		if dst, err = d.Records(dst); err != nil {
			return dst, fmt.Errorf("record page %d: %w", pg, err)
		}
		return dst, nil
	}
	le := binary.LittleEndian
	k := min(int(le.Uint32(page[PageLenOffset:])), RecordsPerPage)
	for o := 0; o < RecordSize*k; o += RecordSize {
		dst = append(dst, sorter.Record{Hash: le.Uint64(page[o:]), Offset: le.Uint64(page[o+8:])})
	}
	return dst, nil
}
