package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan"
)

// CompactOptions say where the index is.
type CompactOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's default index.
	By string
	// IndexDir, when set, is the directory the CSV's indexes live in
	// instead of next to it (see [HomeOf]); IndexPath wins over it.
	IndexDir string
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
	o := &Options{IndexPath: opts.IndexPath, By: opts.By, IndexDir: opts.IndexDir}
	idxPath, err := o.locate(csvPath)
	if err != nil {
		return nil, err
	}
	lock, err := lockIndex(csvPath, idxPath, opts.NoWait)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	files, err := indexFiles(idxPath).openFiles(csvPath, false)
	if err != nil {
		return nil, err
	}
	err = compactOpened(ctx, files, idxPath)
	files.close()
	if err != nil {
		return nil, err
	}
	return ReadInfo(csvPath, o)
}

// compactOpened opens the CSV of the index files opened (after them: the
// CSV only grows) and merges their tail into their main index (see
// compactFiles): a compressed CSV through the table of the tail (or of the
// main index), which covers all the merge reads, with no walk of what was
// appended since.
func compactOpened(ctx context.Context, files *opened, idxPath string) error {
	var csv *csvFile
	var err error
	if files.main == nil { // no usable index: compactFiles says why
		csv, err = openSource(files.csvPath, mapping.Random, format.DefaultDelim)
	} else {
		csv, err = files.openWriting(mapping.Random, false)
	}
	if err != nil {
		return err
	}
	defer csv.close()
	return compactFiles(ctx, csv, files, idxPath, Resources{})
}

// compactLocked is Compact for a caller that holds the lock, within res
// (the default budget for Compact, the update's own for an update that
// merges: the merge holds no other memory than the writer's buffers, and a
// merge that must build anew, the sort's).
func compactLocked(ctx context.Context, csv *csvFile, idxPath string, res Resources) error {
	files, err := indexFiles(idxPath).openFiles(csv.src.Name(), false)
	if err != nil {
		return err
	}
	defer files.close()
	return compactFiles(ctx, csv, files, idxPath, res)
}

// compactFiles is compactLocked with the index files opened.
func compactFiles(ctx context.Context, csv *csvFile, files *opened, idxPath string, res Resources) error {
	// Either file not usable is an error; without a tail there is nothing to do.
	if err := files.judge(csv.at(ctx), int64(csv.size)); err != nil {
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
	shape := res.writeShape()
	return writeIndexFile(idxPath, csv.src.Identity().Perm, shape, true, func(sink format.PageSink, fence func(uint64) error) (*format.Header, error) {
		shadow, err := shadowedRecords(csv, main.h)
		if err != nil {
			return nil, err
		}
		records := main.h.Records + tail.h.Records - shadow
		if f := fingerprintBits(records); main.h.Dense() && int(main.h.FPBits) != f {
			// The index has grown past what main's fingerprints can tell
			// apart: build the index of the bytes the two cover anew,
			// as a build of them does.
			pl := &pipeline{csv: csv.prefix(int(tail.h.Scanned)), spec: specOf(main.h), res: res, fence: fence}
			b, err := pl.run(ctx, idxPath, shape, sink)
			if err != nil {
				return nil, err
			}
			return b.h, nil
		}
		return merge(ctx, csv, main, tail, shadow, res.ThreadCount(), format.NewDensePacker(sink, fence, fingerprintBits(records), records, tail.h.Scanned))
	})
}

// merge writes to w the records of main and its tail, merged, of which
// shadow of main's the tail shadows, and the header of the main index they
// make, and returns that header. With threads above 1, main's pages are
// decoded on a goroutine of their own.
func merge(ctx context.Context, csv *csvFile, main, tail *part, shadow uint64, threads int, w *format.DensePacker) (*format.Header, error) {
	main.m.Advise(mapping.Sequential) // the merge reads both files from end to end
	tail.m.Advise(mapping.Sequential)
	mask := ^uint64(0) << w.Shift
	ms := format.NewDenseCursor(main.r)
	if !main.h.Dense() {
		ms = format.NewMaskedCursor(main.r, mask)
	}
	if threads > 1 {
		// main is decoded on a core of its own while this one merges and packs.
		ahead := format.ReadAhead(ms, main.m)
		defer ahead.Stop()
		ms = ahead
	}
	var shadowed uint64
	err := mapping.Guard(func() error {
		var err error
		shadowed, err = format.MergeDense(ctx, ms, format.NewMaskedCursor(tail.r, mask), tail.h.Base, w)
		return err
	}, main.m, tail.m)
	err = tail.reading(main.reading(err)) // a page of either that is not what the format says
	if errors.Is(err, mapping.ErrFault) {
		err = fmt.Errorf("%s or its tail: %w", main.path, ErrChanged)
	}
	if err != nil {
		return nil, err
	}
	if shadowed != shadow {
		return nil, main.corrupt("%d records at or past the tail's base, where its last row has %d", shadowed, shadow)
	}
	h := mergedHeader(main.h, tail.h, shadowed)
	src, err := csv.prefix(int(tail.h.Scanned)).sourceSection() // the file as the tail found it
	if err != nil {
		return nil, err
	}
	h.SetSource(src)
	var ends error
	err = mapping.Guard(func() error {
		h.HeadChecksum, h.TailChecksum, ends = csv.prefix(int(h.Scanned)).ends()
		return nil
	}, csv.mapping())
	switch {
	case err != nil:
		return nil, ErrChanged // the entry point names the CSV
	case ends != nil:
		return nil, ends
	}
	return h, w.Finish(h)
}

// mergedHeader returns the header of the main index that merging tail t
// into main m makes, short of what the writer and the CSV's fingerprint
// add: the counts of both, less main's unterminated last row, which the
// tail scanned again (shadowed is how many main records pointed at it: 1 if
// it had a key, else main counted it as short).
func mergedHeader(m, t *format.Header, shadowed uint64) *format.Header {
	h := *m
	h.Flags &^= format.FlagTail
	h.Parent, h.Base = 0, 0
	h.Resume, h.Scanned = t.Resume, t.Scanned
	h.Rows = m.Rows + t.Rows
	h.ShortRows = m.ShortRows + t.ShortRows
	h.Blanks = m.Blanks + t.Blanks
	if m.Resume < m.Scanned {
		h.Rows--
		if shadowed == 0 {
			h.ShortRows--
		}
	}
	return &h
}

// shadowedRecords returns how many records of main the tail shadows: its
// last row, indexed without its newline, if it had a key (the tail
// rescanned it from its start, main.resume).
func shadowedRecords(csv *csvFile, main *format.Header) (uint64, error) {
	if main.Resume >= main.Scanned {
		return 0, nil
	}
	data, from := csv.data, int(main.Resume)
	if csv.mem == nil { // a compressed CSV: its last row, read from the byte before (a scanner at 0 skips a byte order mark)
		base := max(0, from-1)
		data, from = make([]byte, int(main.Scanned)-base), from-base
		if _, err := csv.src.ReadAt(context.Background(), data, int64(base)); err != nil {
			return 0, err
		}
	} else {
		data = data[:main.Scanned]
	}
	s := new(scan.Scanner)
	if err := main.InitScanner(s, data); err != nil {
		return 0, err
	}
	s.Reset(from)
	if !s.Next() {
		return 0, fmt.Errorf("%w: no row at the main index's resume offset %d", ErrCorrupt, main.Resume)
	}
	if _, ok := s.Key(); ok {
		return 1, nil
	}
	return 0, nil
}
