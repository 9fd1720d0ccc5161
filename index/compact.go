package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/internal/atomicfile"
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

	hash func([]byte) uint64
}

// Compact merges the tail of the index of the CSV at csvPath into its main
// index: the two files' records are merged as the two sorted streams they
// are (the CSV is not parsed) into a new main index, which replaces the old
// one atomically, and then the tail is removed. The new main index is byte
// for byte what a build of the CSV's indexed bytes writes. Without a
// current tail, Compact does nothing. It returns a description of the index.
func Compact(ctx context.Context, csvPath string, opts *CompactOptions) (*Info, error) {
	if opts == nil {
		opts = &CompactOptions{}
	}
	o := &Options{IndexPath: opts.IndexPath, hash: opts.hash}
	idxPath := o.indexPath(csvPath)
	lock, err := lockIndex(idxPath, opts.NoWait)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	csv, err := openCSV(csvPath, mapping.Random)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	if err := compactLocked(ctx, csv, idxPath, o); err != nil {
		return nil, err
	}
	return ReadInfo(csvPath, o)
}

// compactLocked is Compact for a caller that holds the lock.
func compactLocked(ctx context.Context, csv *csvFile, idxPath string, o *Options) error {
	main, err := openPart(idxPath, csv.path, false)
	if err != nil {
		return err
	}
	defer main.close()
	size := int64(len(csv.data))
	if err := checkFresh(csv.f, size, main.h, csv.path, idxPath); err != nil {
		return err
	}
	tail, err := openTail(tailPath(idxPath), csv.path, main)
	if err != nil || tail == nil {
		return err
	}
	defer tail.close()
	if err := checkFresh(csv.f, size, tail.h, csv.path, tail.path); err != nil {
		return fmt.Errorf("%w (csvidx update rescans the appended rows)", err)
	}

	out, err := atomicfile.Create(idxPath, true)
	if err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	defer out.Abort()
	sink := newFileSink(out)
	defer sink.close()
	w := newPageWriter(sink)
	main.m.Advise(mapping.Sequential) // the merge reads both files from end to end
	tail.m.Advise(mapping.Sequential)
	var shadowed uint64
	err = mapping.Guard(func() error {
		var err error
		shadowed, err = mergeRecords(ctx, main, tail, w.add)
		return err
	}, main.m, tail.m)
	if errors.Is(err, mapping.ErrFault) {
		err = fmt.Errorf("%s or its tail: %w", idxPath, ErrChanged)
	}
	if err != nil {
		return err
	}
	h := mergedHeader(main.h, tail.h, shadowed)
	err = mapping.Guard(func() error {
		h.headChecksum, h.tailChecksum = fingerprint(csv.data[:h.scanned])
		return nil
	}, csv.m)
	if err != nil {
		return fmt.Errorf("%s: %w", csv.path, ErrChanged)
	}
	if err := w.finish(h); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", idxPath, err)
	}
	// The tail and the fence now belong to the old main index; a crash right
	// here leaves them stale, which readers notice by generation and ignore,
	// and the next update or compact replaces.
	if err := removeDerived(idxPath); err != nil {
		return err
	}
	if err := fence.Write(fencePath(idxPath), h.generation, w.firsts); err != nil {
		return fmt.Errorf("write the fence: %w", err)
	}
	return nil
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

const mergeBatch = 1 << 14 // records handed to the writer at a time

// mergeRecords emits the records of main (less those the tail shadows) and
// of tail, merged by (hash, offset), checking every page it reads. It
// returns how many main records the tail shadowed. The tail is small next
// to the main index, so the loop runs over the main records and lets tail
// records in where they belong.
func mergeRecords(ctx context.Context, main, tail *part, emit func([]sorter.Record) error) (uint64, error) {
	tc := cursor{p: tail}
	next, more, err := tc.next()
	if err != nil {
		return 0, err
	}
	batch := make([]sorter.Record, 0, mergeBatch)
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := emit(batch)
		batch = batch[:0]
		return err
	}
	var shadowed uint64
	limit, le := tail.h.base, binary.LittleEndian
	for pg := uint64(0); pg < main.h.pages; pg++ {
		if err := main.checkPage(pg); err != nil {
			return 0, err
		}
		page := main.data[pageSize*(1+pg):][:pageSize]
		k := int(le.Uint32(page[pageLenOffset:]))
		for j := 0; j < k; j++ {
			r := sorter.Record{Hash: le.Uint64(page[recordSize*j:]), Offset: le.Uint64(page[recordSize*j+8:])}
			if r.Offset >= limit {
				shadowed++
				continue
			}
			for more && (next.Hash < r.Hash || next.Hash == r.Hash && next.Offset < r.Offset) {
				batch = append(batch, next)
				if len(batch) == cap(batch) {
					if err := flush(); err != nil {
						return 0, err
					}
				}
				if next, more, err = tc.next(); err != nil {
					return 0, err
				}
			}
			batch = append(batch, r)
			if len(batch) == cap(batch) {
				if err := flush(); err != nil {
					return 0, err
				}
			}
		}
	}
	for ; more; next, more, err = tc.next() {
		batch = append(batch, next)
		if len(batch) == cap(batch) {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err != nil {
		return 0, err
	}
	return shadowed, flush()
}

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
