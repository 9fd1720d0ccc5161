package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/source"
)

// verdict is what opening one of an index's files found it to be, against
// the CSV as it is now.
type verdict uint8

const (
	fileRead   verdict = iota // read, not yet judged against the CSV (see judge)
	fileAbsent                // no such file; for a tail, also one made for another main index
	fileFresh                 // it covers the whole CSV
	fileBehind                // it covers the CSV as it was: rows were appended since
	fileStale                 // the CSV shrank, or changed at either end of what it covers
	fileBroken                // it cannot be used: not an index, another format version, corrupt
)

// usable reports whether lookups can rely on a file with this verdict.
func (v verdict) usable() bool { return v == fileFresh || v == fileBehind }

// opened is the main index and the tail of an index, opened together, each
// with its verdict and, where the verdict is absent, stale or broken, the
// error that says why (with what to do). Every entry point opens an index
// this way and then states its own policy: a lookup refuses what is not
// usable, ReadInfo reports it, Update passes a bad tail over, Compact
// refuses, Verify records differences.
type opened struct {
	files
	csvPath    string
	main, tail *part // nil unless the file could be read
	mainIs     verdict
	tailIs     verdict
	mainWhy    error
	tailWhy    error
	fenceWhy   error // why the main index has no fence, when asked for one
}

// openFiles opens the main index of ix, then its tail (with the main
// index's fence too when withFence), for the CSV at csvPath. Before the
// tail, it asks the kernel for the CSV's first and last 64 KiB, which
// judge reads, so that on a cold cache those reads overlap with opening the
// rest. The caller opens the CSV next (a writer of the CSV only appends, so
// the CSV then covers whatever index files were opened) and calls judge.
// Errors are for what stops every caller, such as a file that cannot be
// read; what is wrong with an index file is its verdict.
func (ix files) openFiles(csvPath string, withFence bool) (*opened, error) {
	o := &opened{files: ix, csvPath: csvPath}
	var err error
	o.main, err = openPart(ix.main, csvPath, false)
	switch {
	case errors.Is(err, ErrNoIndex):
		if cerr := source.Check(csvPath); cerr != nil {
			return nil, cerr // no index because there is no CSV to have one
		}
		o.mainIs, o.mainWhy = fileAbsent, err
		return o, nil
	case broken(err):
		o.mainIs, o.mainWhy = fileBroken, err
		return o, nil
	case err != nil:
		return nil, err
	}
	scanned := int64(o.main.h.Scanned)
	mapping.WillNeedFile(csvPath, format.EndHashLen, 0, max(0, scanned-format.EndHashLen))
	if withFence { // a fence that cannot be used only costs speed
		var f *fence.Fence
		f, o.fenceWhy = fence.Open(ix.fence, o.main.h.Generation, o.main.h.Pages)
		o.main.setFence(f)
	}
	o.tail, err = openTail(ix.tail, csvPath, o.main)
	switch {
	case broken(err):
		o.tailIs, o.tailWhy = fileBroken, err
	case err != nil:
		o.close()
		return nil, err
	case o.tail == nil:
		o.tailIs = fileAbsent
	}
	return o, nil
}

// judge sets the verdicts of the files that could be read against the CSV
// f, of size bytes now.
func (o *opened) judge(f io.ReaderAt, size int64) error {
	for _, p := range []struct {
		part *part
		is   *verdict
		why  *error
	}{{o.main, &o.mainIs, &o.mainWhy}, {o.tail, &o.tailIs, &o.tailWhy}} {
		if p.part == nil {
			continue
		}
		switch err := checkFresh(f, size, p.part.h, o.csvPath, p.part.path); {
		case errors.Is(err, ErrStale):
			*p.is, *p.why = fileStale, err
		case err != nil:
			return err
		case size > int64(p.part.h.Scanned):
			*p.is = fileBehind
		default:
			*p.is = fileFresh
		}
	}
	return nil
}

// judgeOpened sets the verdicts of o's files as judge does, on the CSV
// src of size bytes, opened for them as openIndexed or openForInfo does,
// through the table of sp (see sourcePart). When sp is the furthest of
// them and has a source section, their opening found that the file on
// disk starts with the one sp covers, at both ends and in size: so do its
// plain bytes, which reading would cost the decoding of the frames at the
// ends of each file's (or, of a zstd file in one frame, all of it).
func (o *opened) judgeOpened(sp *part, src source.Source, size int64) error {
	if sp.h.Source != nil && (o.tail == nil || sp == o.tail) {
		o.mainIs = fileFresh
		if o.tail != nil {
			o.mainIs, o.tailIs = fileBehind, fileFresh
		}
		return nil
	}
	if _, ok := src.(source.SelfChecked); ok {
		return o.judge(nil, size) // its size alone: each file it reads is checked as it is opened
	}
	return o.judge(source.ReaderAt(context.Background(), src), size)
}

// needMain returns why the main index cannot be used, or nil when it can.
func (o *opened) needMain() error {
	if o.mainIs.usable() {
		return nil
	}
	return o.mainWhy
}

// furthest returns the header of the usable file that indexes the CSV
// furthest: the tail when it is usable, else the main index.
func (o *opened) furthest() *format.Header {
	if o.tailIs.usable() {
		return o.tail.h
	}
	return o.main.h
}

// close releases the files opened.
func (o *opened) close() {
	if o != nil {
		o.main.close()
		o.tail.close()
	}
}

// openTail opens the tail at path if it extends main: made for main's
// generation, starting where main stops. A tail made for another main index
// (left by an interrupted compact or build) is stale: it is ignored, and the
// next update replaces it. A broken tail is an error.
func openTail(path, csvPath string, main *part) (*part, error) {
	t, err := openPart(path, csvPath, true)
	if err != nil || t == nil {
		return nil, err
	}
	if t.h.Parent != main.h.Generation || t.h.Base != main.h.Resume {
		t.close()
		return nil, nil
	}
	return t, nil
}

// checkFresh refuses an index whose CSV (f, now size bytes) shrank or
// changed at either end of the part the index covers; with f nil (a
// source.SelfChecked), only one that shrank.
func checkFresh(f io.ReaderAt, size int64, h *format.Header, csvPath, idxPath string) error {
	scanned := int64(h.Scanned)
	stale := func(msg string, args ...any) error {
		e := mustRebuild(csvPath, idxPath, h, fmt.Errorf("%s is %w: %s", idxPath, ErrStale, fmt.Sprintf(msg, args...)))
		e.Update = h.Flags&format.FlagTail != 0 // an update rescans what a stale tail indexed
		return e
	}
	if size < scanned {
		return stale("%s shrank from %d to %d bytes", csvPath, scanned, size)
	}
	if f == nil {
		return nil
	}
	n := min(scanned, format.EndHashLen)
	for _, part := range []struct {
		off  int64
		sum  uint64
		name string
	}{{0, h.HeadChecksum, "first"}, {scanned - n, h.TailChecksum, "last"}} {
		sum, err := sumRange(f, part.off, n)
		if err != nil {
			return err
		}
		if sum != part.sum {
			return stale("the %s %d bytes it indexed of %s changed", part.name, n, csvPath)
		}
	}
	return nil
}

// readBufs hold the pieces fingerprints are read in. A lookup checks them
// when it opens its index and again before its last output, and each page
// of fileFresh memory costs a page fault: 16 of them for a 64 KiB buffer.
var readBufs = sync.Pool{New: func() any { return new([16 << 10]byte) }}

// sumRange returns the XXH3-64 of the n bytes of f at off (of fewer, if
// the file ends before).
func sumRange(f io.ReaderAt, off, n int64) (uint64, error) {
	buf := readBufs.Get().(*[16 << 10]byte)
	defer readBufs.Put(buf)
	h := xxh3.New()
	for n > 0 {
		k, err := f.ReadAt(buf[:min(n, int64(len(buf)))], off)
		h.Write(buf[:k])
		if err == io.EOF {
			break
		} else if err != nil {
			return 0, err
		}
		off, n = off+int64(k), n-int64(k)
	}
	return h.Sum64(), nil
}
