package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/sorter"
)

// A pipeline is the one write path of an index file, shared by Build,
// Update and Verify: it scans the CSV's keyed records (package chunked),
// sorts them (package sorter) and packs them into sealed pages (a
// densePacker in format 2, a pageWriter in format 1) for a sink: a new
// file, or Verify's comparison with the old one.
type pipeline struct {
	csv  *csvFile
	spec spec
	// main is, for a tail, the main index it extends: the tail indexes the
	// CSV from where main stops. Nil for a main index.
	main *format.Header
	res  Resources
	// flat says a main index is written in format 1 (Verify rebuilds an
	// index in the format it has); a tail always is.
	flat bool
	// progress, when set, is called now and then with the CSV bytes
	// scanned so far and the CSV's size.
	progress func(done, total int64)
	// fence, when set, takes the first hash of every record page: the
	// fence file's entries, or Verify's check of them.
	fence func(first uint64) error
}

// built is what the pipeline made: the index file's header, and how its
// scan went.
type built struct {
	h    *format.Header
	scan *BuildStats
}

// writeMain builds a main index at idxPath, with its fence, and replaces
// what went with the old one: the tail is removed, the fence rewritten.
func (p *pipeline) writeMain(ctx context.Context, idxPath string) (*built, error) {
	return p.writeTo(ctx, idxPath, true)
}

// writeTail builds the tail of the main index p.main extends and puts it at
// path atomically.
func (p *pipeline) writeTail(ctx context.Context, path string) (*built, error) {
	return p.writeTo(ctx, path, false)
}

func (p *pipeline) writeTo(ctx context.Context, path string, main bool) (*built, error) {
	shape := p.res.writeShape()
	var b *built
	err := writeIndexFile(path, p.csv.src.Identity().Perm, shape, main, func(sink format.PageSink, fence func(uint64) error) (*format.Header, error) {
		p.fence = fence
		var err error
		if b, err = p.run(ctx, path, shape, sink); err != nil {
			return nil, err
		}
		return b.h, nil
	})
	return b, err
}

// writeIndexFile puts a new index file at path atomically, with buffers of
// the given shape: fill writes its pages to the sink it is given, handing
// the first hash of every record page to fence when not nil, and returns
// its header. For a main index, fill gets a fence, written beside the file,
// and once the file is in place the old one's tail and fence are removed
// and the new fence is put in place. Build, Update and Compact write this
// way.
func writeIndexFile(path string, perm fs.FileMode, shape writerShape, main bool, fill func(sink format.PageSink, fence func(uint64) error) (*format.Header, error)) error {
	out, err := atomicfile.Create(path, true, perm)
	if err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	defer out.Abort()
	var fw *fence.Writer
	var add func(uint64) error
	if main {
		if fw, err = fence.Create(fencePath(path), perm); err != nil {
			return fmt.Errorf("write the fence: %w", err)
		}
		defer fw.Abort()
		add = fw.Add
	}
	sink, err := newFileSink(out, shape)
	if err != nil {
		return err
	}
	defer sink.close()
	h, err := fill(sink, add)
	if err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !main {
		return nil
	}
	// The tail and the fence now belong to the old main index; a crash right
	// here leaves them stale, which readers notice by generation and ignore,
	// and the next update or compact replaces.
	if err := removeDerived(path); err != nil {
		return err
	}
	if err := fw.Commit(h.Generation); err != nil {
		return fmt.Errorf("write the fence: %w", err)
	}
	return nil
}

// removeDerived removes the tail and the fence of a main index that was just
// replaced: they belong to the old one (readers would ignore them anyway, by
// generation).
func removeDerived(idxPath string) error {
	for _, p := range []string{tailPath(idxPath), fencePath(idxPath)} {
		if err := atomicfile.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return atomicfile.SyncDir(filepath.Dir(idxPath))
}

// run scans the CSV, sorts its records and writes the index pages to sink,
// for an index file at path whose writer buffers as shape says (the zero
// shape for a sink that writes nothing).
func (p *pipeline) run(ctx context.Context, path string, shape writerShape, sink format.PageSink) (*built, error) {
	plan, so := p.res.plan(path, shape, p.csv.planSize())
	srt := sorter.New(so)
	defer srt.Close()
	var b *built
	err := mapping.Guard(func() error {
		var err error
		if b, err = p.scan(ctx, plan, srt); err != nil {
			return err
		}
		return p.pack(ctx, srt, sink, b.h)
	}, p.csv.mapping())
	if errors.Is(err, mapping.ErrFault) {
		err = ErrChanged // the entry point names the CSV
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// scan reads the records of the CSV as plan says and adds the keyed ones
// to srt: all of them for a main index, those from the main index's resume
// offset on for a tail. It returns the header of the index, short of what
// only the writer knows.
func (p *pipeline) scan(ctx context.Context, plan chunked.Plan, srt *sorter.Sorter) (*built, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	csv, sp := p.csv, p.spec
	var h *format.Header
	var start int
	if p.main != nil {
		h, start = tailHeader(p.main, csv.size)
	} else {
		var err error
		if h, start, err = mainHeader(csv, &sp); err != nil {
			return nil, err
		}
	}
	s := chunked.Scan{Delim: sp.delim, KeyCol: int(h.KeyCol), KeyCols: h.CompositeColumns(), Hash: testHash, Plan: plan, Progress: p.progress}
	csv.input(&s)
	r, err := s.Run(ctx, start, srt)
	if err != nil {
		return nil, err
	}
	return p.scanned(h, r, 0, plan.Threads)
}

// scanned completes the header h of an index from the result of its scan
// with threads workers, in which its key is key j, and returns what the
// pipeline built.
func (p *pipeline) scanned(h *format.Header, r chunked.Result, j, threads int) (*built, error) {
	p.csv.scanDone()
	size := p.csv.size
	h.Scanned = uint64(size)
	var err error
	if h.HeadChecksum, h.TailChecksum, err = p.csv.ends(); err != nil {
		return nil, err
	}
	src, err := p.csv.sourceSection() // a tail's too: lookups open the file as the furthest file found it
	if err != nil {
		return nil, err
	}
	h.SetSource(src)
	if p.main == nil && r.Rows > 0 && r.Short[j] == r.Rows {
		return nil, noKeyColumn(p.csv, h.Delim, h)
	}
	h.Rows, h.ShortRows, h.Blanks = r.Rows, r.Short[j], h.Blanks+r.Blanks
	h.Resume = uint64(size)
	if r.Resume >= 0 {
		h.Resume = uint64(r.Resume)
	}
	if p.main == nil && h.HeaderEnd > 0 && p.csv.head[h.HeaderEnd-1] != '\n' {
		h.Resume = h.HeaderStart // an unterminated header: the next scan starts over
	}
	if p.progress != nil {
		p.progress(int64(size), int64(size))
	}
	st := &BuildStats{Threads: threads, Chunks: r.Chunks, Repairs: r.Repairs, Skipped: r.Skipped, Full: r.Full, InOrder: r.InOrder}
	return &built{h: h, scan: st}, nil
}

// pack takes the sorted records from srt and writes them as pages to sink,
// then the header h: a main index in format 2 (unless p.flat), whose
// records the sorter masks to their fingerprints, a tail in format 1.
func (p *pipeline) pack(ctx context.Context, srt *sorter.Sorter, sink format.PageSink, h *format.Header) error {
	var w recordPacker = format.NewPageWriter(sink, p.fence)
	if p.main == nil && !p.flat && !testFlat {
		records := h.Rows - h.ShortRows // one record per row with a key
		d := format.NewDensePacker(sink, p.fence, fingerprintBits(records), records, h.Scanned)
		srt.MaskHashes(^uint64(0) << d.Shift)
		w = d
	}
	err := srt.Finish(func(batch []sorter.Record) error {
		if p.csv.releaseAfterScan {
			p.csv.release() // the sort has its buffers (see release); once, however often called
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return w.AddBatch(batch)
	})
	if err != nil {
		return err
	}
	return w.Finish(h)
}

// A recordPacker packs sorted records into the pages of an index file: a
// pageWriter in format 1, a densePacker in format 2.
type recordPacker interface {
	AddBatch(recs []sorter.Record) error
	Finish(h *format.Header) error
}
