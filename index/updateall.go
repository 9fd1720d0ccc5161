package index

import (
	"context"
	"fmt"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
)

// UpdateAll updates every index of the CSV at csvPath (see [Indexes]) as
// Update does, in one scan of the appended rows for all of them: the tails
// of the indexes that stop at the same offset are written together, each
// put in place atomically, one after the other once all are written, and
// each then merged into its main index on its own when it is due. Each
// index is always whole and true to the CSV: an interrupted UpdateAll
// leaves some indexes updated and some as they were, never one mixed.
//
// Every index is checked before any is written: a stale or broken main
// index is an error, and nothing is updated. It returns a result per
// index, in the order of Indexes. With opts.IndexPath or opts.By, it
// updates that one index, as Update does.
func UpdateAll(ctx context.Context, csvPath string, opts *UpdateOptions) (_ []*UpdateResult, err error) {
	if opts == nil {
		opts = &UpdateOptions{}
	}
	if opts.IndexPath != "" || opts.By != "" {
		r, err := Update(ctx, csvPath, opts)
		if err != nil {
			return nil, err
		}
		return []*UpdateResult{r}, nil
	}
	defer namePath(&err, csvPath, "")
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	h, err := HomeOf(csvPath, opts.IndexDir)
	if err != nil {
		return nil, err
	}
	ls, err := lockFirst(h, opts.NoWait)
	if err != nil {
		return nil, err
	}
	defer ls.unlock()
	paths, err := h.Indexes()
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		paths = []string{h.DefaultIndexPath()} // which is reported missing
	}
	if err := ls.lockRest(paths); err != nil {
		return nil, err
	}

	// As for Update: a main index that is not usable is an error, a tail
	// that is not is passed over.
	all := make([]*opened, len(paths))
	for i, path := range paths {
		files, err := indexFiles(path).openFiles(csvPath, false)
		if err != nil {
			return nil, err
		}
		defer files.close()
		if files.mainIs == fileAbsent || files.mainIs == fileBroken {
			return nil, files.mainWhy
		}
		all[i] = files
	}
	csv, err := furthestOpened(all).openWriting(mapping.Sequential, true)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	for _, files := range all {
		if err := files.judge(csv.at(ctx), int64(csv.size)); err != nil {
			return nil, err
		}
		if err := files.needMain(); err != nil {
			return nil, err
		}
	}
	rs, err := updateIndexes(ctx, csv, paths, all, opts)
	if err != nil {
		return nil, err
	}
	for i, path := range paths {
		info, err := ReadInfo(csvPath, &Options{IndexPath: path, IndexDir: opts.IndexDir})
		if err != nil {
			return nil, err
		}
		if info.Stale != "" { // the CSV shrank or was rewritten while update ran
			return nil, fmt.Errorf("%s: %w while the update ran: %w", csvPath, ErrChanged, info.StaleError)
		}
		rs[i].Info, rs[i].Path = info, path
	}
	return rs, nil
}

// furthestOpened returns the index files of all whose source section
// covers the most of a compressed CSV, through whose table the CSV is
// opened (the others are judged against it), else all's first.
func furthestOpened(all []*opened) *opened {
	best, covered := all[0], uint64(0)
	for _, o := range all {
		if s := sourcePart(o.main, o.tail).h.Source; s != nil && s.Size > covered {
			best, covered = o, s.Size
		}
	}
	return best
}

// updateIndexes updates the indexes at paths, whose files all holds, from
// the CSV: an index whose header record was incomplete is built again on
// its own, and the tails of the others are written in one scan for those
// that stop at the same offset and share a delimiter. Each tail that is due is then merged into
// its main index.
func updateIndexes(ctx context.Context, csv *csvFile, paths []string, all []*opened, opts *UpdateOptions) ([]*UpdateResult, error) {
	rs := make([]*UpdateResult, len(paths))
	var due []int // the indexes that get a tail
	for i, files := range all {
		res, p := planUpdate(csv, files, opts)
		rs[i] = res
		switch res.Action {
		case "rebuild":
			if _, err := p.writeMain(ctx, paths[i]); err != nil {
				return nil, err
			}
		case "tail":
			due = append(due, i)
		}
	}
	// A tail is scanned from where its main index stops, in its dialect.
	tailScan := func(i int) scanKey {
		h := all[i].main.h
		return scanKey{from: h.Resume, delim: h.Delim}
	}
	tails := make([]*format.Header, len(paths))
	p := &pipeline{csv: csv, res: opts.Resources, progress: opts.Progress}
	for _, group := range sameScans(due, tailScan) {
		parts := make([]*scanPart, len(group))
		for k, i := range group {
			main := all[i].main.h
			h, _ := tailHeader(main, csv.size)
			parts[k] = &scanPart{h: h, main: main, path: tailPath(paths[i])}
		}
		bs, err := p.writeParts(ctx, parts, int(all[group[0]].main.h.Resume), false)
		if err != nil {
			return nil, err
		}
		for k, i := range group {
			tails[i] = bs[k].h
		}
	}
	for i, t := range tails {
		if t == nil {
			continue
		}
		if err := compactIfDue(ctx, csv, all[i], paths[i], t, opts, rs[i]); err != nil {
			return nil, err
		}
	}
	return rs, nil
}
