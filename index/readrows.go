package index

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/csvidx/csvidx/scan"
)

// Reading a heavy key's rows by pread. Each row of a key of thousands lies
// on a page of its own, and the first touch of a mapped page costs about
// 2.8 µs on this project's VM (the page-table entry, under nested paging;
// MADV_POPULATE_READ costs the same); a pread of a row's first KiB costs
// about 1.0 µs (scripts/heavy's floors). So a lookup reads its first
// preadAfter candidate rows from the mapping, and the others by pread,
// into a buffer of its own.

// preadAfter is how many candidate rows a lookup reads from the mapping
// before it reads the others by pread. A variable, for tests.
var preadAfter = 256

// rowInPage: a row read by pread that starts at least rowInPage bytes
// before its page's end is read up to that end only, so that on a cold
// cache the read brings no other page in (a row that goes on past it is
// read from the mapping, as before).
const rowInPage = 128

// A rowReader reads candidate rows by pread: a buffer and a scanner over
// it. The zero value is ready.
type rowReader struct {
	buf []byte
	s   scan.Scanner
}

// candidateRead is candidate, reading the row at off by pread: from the
// byte before it (the line start), rowWindowBytes from it. A row that may
// go on past them, or a read that fails, is left to the caller to read
// from the mapping: done is false. A read that ends early, the CSV cut
// short since it was opened, is ErrChanged: the mapping would show zeros
// there, within the last page, not fault. The span passed
// to fn holds bytes of rr's buffer, valid during the call.
func (ix *Index) candidateRead(rr *rowReader, p *part, off, h uint64, key []byte, shadow uint64, fn func(Span) error) (done bool, _ error) {
	if skip, err := inPart(p, off, shadow); skip || err != nil {
		return true, err
	}
	base := windowBase(off)
	end := min(ix.csv.size, int(off)+rowWindowBytes)
	if pageEnd := int((off/osPage + 1) * osPage); pageEnd-int(off) >= rowInPage {
		end = min(end, pageEnd) // no page more than the mapping would read, cold
	}
	if base >= end {
		return false, nil
	}
	if cap(rr.buf) < end-base {
		rr.buf = make([]byte, end-base)
	}
	w := rr.buf[:end-base]
	if n, err := ix.csv.src.ReadAt(context.Background(), w, int64(base)); n < len(w) {
		if errors.Is(err, io.EOF) { // what the index covers is no longer there
			return true, fmt.Errorf("%s: %w: it ends before byte %d", ix.csvPath, ErrChanged, end)
		}
		return false, nil
	}
	sp, ok, err := ix.windowRow(&rr.s, p, off, h, key, w, base, end == ix.csv.size)
	switch {
	case errors.Is(err, errPastWindow):
		return false, nil
	case err != nil || !ok:
		return true, err
	}
	return true, fn(sp)
}
