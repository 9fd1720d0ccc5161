package index

import (
	"context"
	"errors"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/sorter"
)

// A scanPart is one of the index files a shared scan makes (see
// [pipeline.runParts]): a main index, or the tail of one. Build makes
// several main indexes in one scan, Update several tails, and Verify
// rebuilds one or several of either to compare them with the files.
type scanPart struct {
	h     *format.Header     // its header, short of what the scan and its writer know
	main  *format.Header     // for a tail, the main index it extends; nil for a main index
	flat  bool               // a main index written in format 1 (see pipeline.flat)
	path  string             // the file it is written to or compared with; it names the spill files
	sink  format.PageSink    // where its pages go
	fence func(uint64) error // what takes the first hash of each record page, or nil
}

// part returns the pipeline that writes sp: p with sp's own main index,
// format and fence.
func (p *pipeline) part(sp *scanPart) *pipeline {
	q := *p
	q.main, q.flat, q.fence = sp.main, sp.flat, sp.fence
	return &q
}

// writeParts writes the index files of parts, all main indexes or all
// tails, in one scan of the CSV from its offset start, each atomically at
// its path as writeIndexFile does, one after the other once all are
// written: each file is opened within the one before, and all are filled in
// the innermost, so they are put in place from the last to the first.
func (p *pipeline) writeParts(ctx context.Context, parts []*scanPart, start int, main bool) ([]*built, error) {
	k := len(parts)
	share := p.res
	share.MemLimit = p.res.MemBudget() / int64(k)
	shape := share.writeShape()
	var bs []*built
	var write func(j int) error
	write = func(j int) error {
		return writeIndexFile(parts[j].path, p.csv.src.Identity().Perm, shape, main, func(sink format.PageSink, fence func(uint64) error) (*format.Header, error) {
			parts[j].sink, parts[j].fence = sink, fence
			if j+1 < k {
				if err := write(j + 1); err != nil {
					return nil, err
				}
			} else {
				var err error
				if bs, err = p.runParts(ctx, parts, start, shape); err != nil {
					return nil, err
				}
			}
			return bs[j].h, nil
		})
	}
	if err := write(0); err != nil {
		return nil, err
	}
	return bs, nil
}

// runParts scans the CSV once from its offset start, hands each part's
// records to a sorter of its own, and then packs each sorter's records into
// its part's sink, with its fence. The parts' writers buffer as shape says
// (the zero shape for sinks that write nothing).
func (p *pipeline) runParts(ctx context.Context, parts []*scanPart, start int, shape writerShape) ([]*built, error) {
	plan, opts := p.res.planKeys(parts[0].path, shape, p.csv.planSize(), len(parts))
	srts := make([]*sorter.Sorter, len(parts))
	for j := range srts {
		o := opts
		o.TmpName = spillName(parts[j].path)
		srts[j] = sorter.New(o)
	}
	defer func() {
		for _, s := range srts {
			s.Close()
		}
	}()
	var bs []*built
	err := mapping.Guard(func() error {
		var err error
		if bs, err = p.scanParts(ctx, parts, start, plan, srts); err != nil {
			return err
		}
		for j, srt := range srts {
			if err := p.part(parts[j]).pack(ctx, srt, parts[j].sink, bs[j].h); err != nil {
				return err
			}
			srt.Close() // its memory is done with
		}
		return nil
	}, p.csv.mapping())
	if errors.Is(err, mapping.ErrFault) {
		err = ErrChanged // the entry point names the CSV
	}
	return bs, err
}

// scanParts reads the records of the CSV once from start and adds each
// part's to its sorter, and returns what each part's scan built: its
// header, short of what only its writer knows.
func (p *pipeline) scanParts(ctx context.Context, parts []*scanPart, start int, plan chunked.Plan, srts []*sorter.Sorter) ([]*built, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	keys := make([][]int, len(parts))
	sinks := make([]chunked.Sink, len(parts))
	for j, sp := range parts {
		keys[j], sinks[j] = sp.h.KeyColumns(), srts[j]
	}
	s := chunked.Scan{Delim: parts[0].h.Delim, Keys: keys, Hash: testHash, Plan: plan, Progress: p.progress}
	p.csv.input(&s)
	if len(parts) == 1 { // a scan of one key takes it as KeyCol or KeyCols
		h := parts[0].h
		s.Keys, s.KeyCol, s.KeyCols = nil, int(h.KeyCol), h.CompositeColumns()
	}
	r, err := s.RunKeys(ctx, start, sinks)
	if err != nil {
		return nil, err
	}
	bs := make([]*built, len(parts))
	for j, sp := range parts {
		if bs[j], err = p.part(sp).scanned(sp.h, r, j, plan.Threads); err != nil {
			return nil, err
		}
	}
	return bs, nil
}

// mainParts returns a part for the main index by each of specs, at the
// path of the same place, and the offset of the CSV's first data record,
// from which the scan of all of them starts. Reading the CSV's header may
// fault if the CSV shrank: it runs guarded.
func (p *pipeline) mainParts(specs []spec, paths []string) ([]*scanPart, int, error) {
	parts := make([]*scanPart, len(specs))
	var start int
	err := mapping.Guard(func() error {
		for j := range specs {
			h, s, err := mainHeader(p.csv, &specs[j])
			if err != nil {
				return err
			}
			parts[j], start = &scanPart{h: h, path: paths[j]}, s
		}
		return nil
	}, p.csv.mapping())
	if errors.Is(err, mapping.ErrFault) {
		err = ErrChanged
	}
	return parts, start, err
}

// A scanKey is what the index files one scan makes must share: the CSV
// bytes it reads, where it starts, and the dialect.
type scanKey struct {
	scanned, from uint64
	delim         byte
	header        bool
}

// sameScans groups items, in their order, by the scan each needs (key),
// into the sets that one scan serves.
func sameScans[T any](items []T, key func(T) scanKey) [][]T {
	var groups [][]T
	at := map[scanKey]int{}
	for _, it := range items {
		k := key(it)
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], it)
	}
	return groups
}
