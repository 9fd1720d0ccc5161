package index

import (
	"context"
	"fmt"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/sorter"
	"github.com/csvidx/csvidx/source"
)

// Totals are what the scans of a CSV counted, for WriteRecords: records
// read, those without the key, blank lines skipped (those before the
// header are counted by WriteRecords), and where an unterminated last
// record starts (-1 when there is none).
type Totals struct {
	Rows, ShortRows, Blanks uint64
	Resume                  int64
}

// WriteRecords writes at opts.IndexPath the main index by opts.Key of the
// CSV src holds, as BuildFrom does, made of records that scans elsewhere
// found (package multifile's map tasks) instead of a scan of its own: feed
// hands them to add, a batch at a time, in ascending order of offset (the
// order the scans found them in), and totals says what those scans
// counted. The index holds the records fed, and only them (a
// partition of an index over several files holds the keys of its
// partition). It closes src.
func WriteRecords(ctx context.Context, src source.Source, totals Totals, feed func(add func([]sorter.Record) error) error, opts *BuildOptions) (_ *Info, err error) {
	if opts == nil {
		opts = &BuildOptions{} // no index path: an error
	}
	defer namePath(&err, src.Name(), opts.IndexPath)
	if totals.ShortRows > totals.Rows {
		src.Close()
		return nil, fmt.Errorf("WriteRecords: %d rows without the key of %d", totals.ShortRows, totals.Rows)
	}
	csv, sp, err := openGiven("WriteRecords", src, opts)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	var h *format.Header
	if err := csv.guard(func() (err error) {
		sp.key = opts.Key
		h, _, err = mainHeader(csv, &sp)
		return err
	}); err != nil {
		return nil, err
	}
	p := &pipeline{csv: csv, spec: sp, res: opts.Resources}
	path := opts.IndexPath
	shape := p.res.writeShape()
	var b *built
	err = writeIndexFile(path, csv.src.Identity().Perm, shape, true, func(sink format.PageSink, fence func(uint64) error) (*format.Header, error) {
		p.fence = fence
		plan, so := p.res.plan(path, shape, p.csv.planSize())
		srt := sorter.New(so)
		defer srt.Close()
		fed := uint64(0)
		d, g := srt.NewDistributor(), new(sorter.Group)
		err := feed(func(recs []sorter.Record) error {
			fed += uint64(len(recs))
			// Grouped here and taken over by the sorter: one copy of
			// each record fewer than Add's staging makes.
			if err := d.Group(g, recs); err != nil {
				return err
			}
			return srt.AddGroup(g)
		})
		if err != nil {
			return nil, err
		}
		if fed != totals.Rows-totals.ShortRows {
			return nil, fmt.Errorf("WriteRecords: %d records fed, and the totals say %d rows with the key", fed, totals.Rows-totals.ShortRows)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := chunked.Result{Tally: chunked.Tally{Rows: totals.Rows, Blanks: totals.Blanks, Resume: totals.Resume}}
		r.Short[0] = totals.ShortRows
		if b, err = p.scanned(h, r, 0, plan.Threads); err != nil {
			return nil, err
		}
		b.scan = &BuildStats{}
		if err := p.pack(ctx, srt, sink, b.h); err != nil {
			return nil, err
		}
		return b.h, nil
	})
	if err != nil {
		return nil, err
	}
	info := newInfo(src.Name(), path, b.h, int64(b.h.Size()), int64(b.h.Scanned))
	info.Build = b.scan
	info.setState()
	return info, nil
}
