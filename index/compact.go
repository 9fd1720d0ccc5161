package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/sorter"
)

// CompactOptions say where the index is.
type CompactOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// NoWait fails at once, with ErrLocked, if another process is writing
	// the index.
	NoWait bool
}

// Compact merges the tail of the index of the CSV at csvPath into its main
// index: the two files' records are merged as the two sorted streams they
// are (the CSV is not parsed) into a new main index, which replaces the old
// one atomically, and then the tail is removed. The new main index is byte
// for byte what a build of the CSV's indexed bytes writes. Without a
// current tail, Compact does nothing. It returns a description of the index.
func Compact(ctx context.Context, csvPath string, opts *CompactOptions) (_ *Info, err error) {
	if opts == nil {
		opts = &CompactOptions{}
	}
	defer namePath(&err, csvPath, opts.IndexPath)
	o := &Options{IndexPath: opts.IndexPath}
	idxPath := o.indexPath(csvPath)
	lock, err := lockIndex(csvPath, idxPath, opts.NoWait)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	csv, err := openCSV(csvPath, mapping.Random)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	if err := compactLocked(ctx, csv, idxPath, Resources{}.writeShape()); err != nil {
		return nil, err
	}
	return ReadInfo(csvPath, o)
}

// compactLocked is Compact for a caller that holds the lock, writing with
// buffers of the given shape (the default budget's for Compact, the
// update's own for an update that merges: the merge holds no other memory).
func compactLocked(ctx context.Context, csv *csvFile, idxPath string, shape writerShape) error {
	// Either file not usable is an error; without a tail there is nothing to do.
	files, err := indexFiles(idxPath).openFiles(csv.path, false)
	if err != nil {
		return err
	}
	defer files.close()
	if err := files.judge(csv.f, int64(len(csv.data))); err != nil {
		return err
	}
	if err := files.needMain(); err != nil {
		return err
	}
	switch files.tailIs {
	case fileAbsent:
		return nil
	case fileBroken, fileStale:
		return files.tailWhy
	}
	main, tail := files.main, files.tail
	return writeIndexFile(idxPath, csv.perm, shape, true, func(sink pageSink, fence func(uint64) error) (*header, error) {
		return merge(ctx, csv, main, tail, newPageWriter(sink, fence))
	})
}

// merge writes to w the records of main and its tail, merged, and the header
// of the main index they make, and returns that header.
func merge(ctx context.Context, csv *csvFile, main, tail *part, w *pageWriter) (*header, error) {
	main.m.Advise(mapping.Sequential) // the merge reads both files from end to end
	tail.m.Advise(mapping.Sequential)
	var shadowed uint64
	err := mapping.Guard(func() error {
		var err error
		shadowed, err = mergeRecords(ctx, main, tail, w)
		return err
	}, main.m, tail.m)
	if errors.Is(err, mapping.ErrFault) {
		err = fmt.Errorf("%s or its tail: %w", main.path, ErrChanged)
	}
	if err != nil {
		return nil, err
	}
	h := mergedHeader(main.h, tail.h, shadowed)
	err = mapping.Guard(func() error {
		h.headChecksum, h.tailChecksum = fingerprint(csv.data[:h.scanned])
		return nil
	}, csv.m)
	if err != nil {
		return nil, ErrChanged // the entry point names the CSV
	}
	return h, w.finish(h)
}

// mergedHeader returns the header of the main index that merging tail t
// into main m makes, short of what the writer and the CSV's fingerprint
// add: the counts of both, less main's unterminated last row, which the
// tail scanned again (shadowed is how many main records pointed at it: 1 if
// it had a key, else main counted it as short).
func mergedHeader(m, t *header, shadowed uint64) *header {
	h := *m
	h.flags &^= flagTail
	h.parent, h.base = 0, 0
	h.resume, h.scanned = t.resume, t.scanned
	h.rows = m.rows + t.rows
	h.shortRows = m.shortRows + t.shortRows
	h.blanks = m.blanks + t.blanks
	if m.resume < m.scanned {
		h.rows--
		if shadowed == 0 {
			h.shortRows--
		}
	}
	return &h
}

// mergeRecords writes to w the records of main (less those the tail
// shadows) merged with the tail's, and returns how many it left out. A
// record of main sorts before every tail record of an equal or larger hash:
// its offset is below the tail's base. So main's records go to w in runs,
// copied as they are encoded, up to the next tail record's hash: with a
// tail of a few percent, the merge is mostly copying pages.
func mergeRecords(ctx context.Context, main, tail *part, w *pageWriter) (uint64, error) {
	tc := cursor{p: tail}
	next, more, err := tc.next()
	if err != nil {
		return 0, err
	}
	var shadowed uint64
	limit, le := tail.h.base, binary.LittleEndian
	hashAt := func(recs []byte, i int) uint64 { return le.Uint64(recs[recordSize*i:]) }
	// Only the row main indexed without its newline, at main.h.resume
	// (where the tail starts), can be shadowed.
	shadows := main.h.resume < main.h.scanned
	// emitMain writes main's records recs, less those at or past limit.
	emitMain := func(recs []byte) error {
		for i := 0; shadows && i < len(recs); i += recordSize {
			if le.Uint64(recs[i+8:]) >= limit {
				shadowed++
				if err := w.addEncoded(recs[:i]); err != nil {
					return err
				}
				recs, i = recs[i+recordSize:], -recordSize
			}
		}
		return w.addEncoded(recs)
	}
	for pg := uint64(0); pg < main.h.pages; pg++ {
		if pg%mergeCheckPages == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if err := main.checkPage(pg); err != nil {
			return 0, err
		}
		page := main.data[pageSize*(1+pg):][:pageSize]
		k := int(le.Uint32(page[pageLenOffset:]))
		recs := page[:recordSize*k]
		for len(recs) > 0 {
			n := len(recs) / recordSize
			if more {
				n = sort.Search(n, func(i int) bool { return hashAt(recs, i) > next.Hash })
			}
			if err := emitMain(recs[:recordSize*n]); err != nil {
				return 0, err
			}
			recs = recs[recordSize*n:]
			for more && len(recs) > 0 && next.Hash < hashAt(recs, 0) {
				if err := w.add([]sorter.Record{next}); err != nil {
					return 0, err
				}
				if next, more, err = tc.next(); err != nil {
					return 0, err
				}
			}
		}
	}
	for n := 0; more; next, more, err = tc.next() {
		if n++; n%(mergeCheckPages*recordsPerPage) == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if err := w.add([]sorter.Record{next}); err != nil {
			return 0, err
		}
	}
	return shadowed, err
}

// mergeCheckPages is how many pages of records are merged between checks
// for cancellation.
const mergeCheckPages = 1024

// cursor walks the records of a part in order, checking each page before
// reading it.
type cursor struct {
	p *part
	i uint64
}

// next returns the next record, or false at the end.
func (c *cursor) next() (sorter.Record, bool, error) {
	if c.i >= c.p.h.records {
		return sorter.Record{}, false, nil
	}
	if c.i%recordsPerPage == 0 {
		if err := c.p.checkPage(c.i / recordsPerPage); err != nil {
			return sorter.Record{}, false, err
		}
	}
	r := sorter.Record{Hash: c.p.hashAt(c.i), Offset: c.p.offsetAt(c.i)}
	c.i++
	return r, true, nil
}
