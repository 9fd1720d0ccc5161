package index

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/source"
)

// VerifyOptions say where the index to verify is and how to rebuild it.
type VerifyOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's default index.
	By string
	// IndexDir, when set, is the directory the CSV's indexes live in
	// instead of next to it (see [HomeOf]); IndexPath wins over it.
	IndexDir string
	// Resources bound the rebuild's memory and say where it may spill.
	Resources
	// Progress, when set, is called now and then with the CSV bytes
	// scanned so far and the number to scan.
	Progress func(done, total int64)
}

// VerifyResult says whether an index equals a fresh build.
type VerifyResult struct {
	// Equal is true when the index file is byte for byte what a build of
	// the CSV bytes it covers writes now.
	Equal bool
	// Differences says where it differs, one finding a line.
	Differences []string
	// BytesBehind is how much the CSV grew after the index was built; those
	// bytes are not compared.
	BytesBehind int64
	// Notes are findings that are not differences: a fence that is missing
	// or belongs to another index only costs speed, and lookups ignore it.
	Notes []string
	// Path is the index file verified.
	Path string
	// Built is what the index was built with, from its header, for the
	// build that makes it again; nil when its header is broken.
	Built *Definition
}

// Verify rebuilds the index of the CSV at csvPath in memory, with the
// options the index was built with, over the CSV bytes it covers, and
// compares the result with the index file byte for byte. A broken or stale
// index is a difference, not an error; errors are for what stops the
// comparison: a missing index, an unreadable CSV.
func Verify(ctx context.Context, csvPath string, opts *VerifyOptions) (_ *VerifyResult, err error) {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	defer namePath(&err, csvPath, opts.IndexPath)
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	o := &Options{IndexPath: opts.IndexPath, By: opts.By, IndexDir: opts.IndexDir}
	idxPath, err := o.locate(csvPath)
	if err != nil {
		return nil, err
	}
	rs, err := verifyIndexes(ctx, csvPath, []string{idxPath}, opts)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// VerifyAll verifies every index of the CSV at csvPath (see [Indexes]) as
// Verify does, in one scan for the main indexes that cover the same bytes
// and one for the tails that do. It returns a result per index, in the
// order of Indexes; a CSV without an index is an error, as for Verify.
// With opts.IndexPath or opts.By, it verifies that one index.
func VerifyAll(ctx context.Context, csvPath string, opts *VerifyOptions) (_ []*VerifyResult, err error) {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	if opts.IndexPath != "" || opts.By != "" {
		r, err := Verify(ctx, csvPath, opts)
		if err != nil {
			return nil, err
		}
		return []*VerifyResult{r}, nil
	}
	defer namePath(&err, csvPath, "")
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	h, err := HomeOf(csvPath, opts.IndexDir)
	if err != nil {
		return nil, err
	}
	paths, err := h.Indexes()
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		paths = []string{h.DefaultIndexPath()} // which Verify reports missing
	}
	return verifyIndexes(ctx, csvPath, paths, opts)
}

// verifyIndexes verifies the index at each of paths of the CSV at csvPath
// (see Verify): first their main indexes, each set of those that cover the
// same CSV bytes in one scan, then their tails likewise.
func verifyIndexes(ctx context.Context, csvPath string, paths []string, opts *VerifyOptions) ([]*VerifyResult, error) {
	// A missing main index is an error; a broken file is a difference. A
	// stale one needs no verdict: the rebuild over what it covers says how
	// it differs.
	rs := make([]*VerifyResult, len(paths))
	var mains, tails []verifyJob
	for i, path := range paths {
		ix := indexFiles(path)
		files, err := ix.openFiles(csvPath, false)
		if err != nil {
			return nil, err
		}
		defer files.close()
		rs[i] = &VerifyResult{Path: path}
		switch {
		case files.mainIs == fileAbsent:
			return nil, files.mainWhy
		case files.mainIs == fileBroken:
			rs[i].Differences = append(rs[i].Differences, files.mainWhy.Error())
			continue
		case files.tailIs == fileBroken:
			rs[i].Differences = append(rs[i].Differences, files.tailWhy.Error())
		}
		rs[i].Built = definitionOf(files.main.h)
		fc := fence.NewCheck(ix.fence)
		defer fc.Close()
		mains = append(mains, verifyJob{res: rs[i], p: files.main, fc: fc})
		if files.tail != nil {
			tails = append(tails, verifyJob{res: rs[i], p: files.tail, extends: files.main.h})
		}
	}
	delim := byte(format.DefaultDelim)
	if len(mains) > 0 {
		delim = mains[0].p.h.Delim
	}
	csv, err := openVerified(csvPath, mains, delim) // a compressed file walked anew: its table is checked too
	if err != nil {
		return nil, err
	}
	defer csv.close()
	for _, jobs := range [][]verifyJob{mains, tails} {
		for _, group := range sameScans(jobs, verifyJob.scanOf) {
			if err := verifyParts(ctx, csv, group, opts); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range rs {
		r.Equal = len(r.Differences) == 0
	}
	return rs, nil
}

// openVerified opens the CSV at csvPath for a verify of the main indexes of
// jobs, as openSource does, but a compressed file walked as the first's
// build walked it (its checkpoints as far apart: see source.OpenLike).
func openVerified(csvPath string, mains []verifyJob, delim byte) (*csvFile, error) {
	if len(mains) == 0 || mains[0].p.h.Source == nil {
		return openSource(csvPath, mapping.Sequential, delim)
	}
	p := mains[0].p
	table, err := p.table()
	if err != nil {
		return nil, err
	}
	src, err := source.OpenLike(csvPath, mapping.Sequential, p.h.Source.Backend, table)
	if err != nil {
		return nil, err
	}
	return fromSource(src, delim, true)
}

// A verifyJob is one index file to verify: a main index with its fence's
// check, or a tail with the main index it extends.
type verifyJob struct {
	res     *VerifyResult // the result of the index it belongs to
	p       *part
	extends *format.Header // for a tail, the main index it extends
	fc      *fence.Check   // for a main index, the check of its fence
}

// scanOf returns the scan that rebuilds j's file: over the bytes it
// covers, from where a tail starts, in its dialect.
func (j verifyJob) scanOf() scanKey {
	h := j.p.h
	k := scanKey{scanned: h.Scanned, delim: h.Delim, header: h.Flags&format.FlagHeader != 0}
	if j.extends != nil {
		k.from = j.extends.Resume
	}
	return k
}

// verifyParts rebuilds the index files of jobs, which cover the same CSV
// bytes (see verifyJob.scanOf), in one scan over those bytes, compares each with
// its file, and the fence a main index makes with its check, and adds what
// differs to each job's result.
func verifyParts(ctx context.Context, csv *csvFile, jobs []verifyJob, opts *VerifyOptions) error {
	scanned := jobs[0].p.h.Scanned
	if uint64(csv.size) < scanned {
		for _, j := range jobs {
			j.res.Differences = append(j.res.Differences, fmt.Sprintf("%s shrank from %d to %d bytes since %s was built; rebuild the index",
				csv.src.Name(), scanned, csv.size, j.p.path))
		}
		return nil
	}
	covered := csv.prefix(int(scanned))
	if s := jobs[0].p.h.Source; s != nil {
		covered.fileSize = int64(s.Size) // the file as it was when its index was built (see sourceSection)
	}
	sinks := make([]*format.Comparison, len(jobs))
	for i, j := range jobs {
		j.p.m.Advise(mapping.Sequential) // the comparison reads the file from end to end
		sinks[i] = format.NewComparison(j.p.data)
	}
	pl := &pipeline{csv: covered, res: opts.Resources, progress: opts.Progress}
	fresh, err := pl.rebuild(ctx, jobs, sinks)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		for _, d := range sinks[i].Report(csv.src.Name(), j.p.h, fresh[i].h) {
			j.res.Differences = append(j.res.Differences, filepath.Base(j.p.path)+": "+d)
		}
		if j.fc != nil {
			diffs, notes := j.fc.Report(j.p.h.Generation, fresh[i].h.Generation)
			j.res.Differences = append(j.res.Differences, diffs...)
			j.res.Notes = append(j.res.Notes, notes...)
		}
		j.res.BytesBehind = int64(csv.size) - int64(scanned)
	}
	return nil
}

// rebuild builds the index files of jobs again, in one scan over the CSV
// bytes of p, with the options each was built with, and hands their pages
// to sinks.
func (p *pipeline) rebuild(ctx context.Context, jobs []verifyJob, sinks []*format.Comparison) ([]*built, error) {
	parts := make([]*scanPart, len(jobs))
	for i, j := range jobs {
		parts[i] = &scanPart{main: j.extends, flat: !j.p.h.Dense(), path: j.p.path, sink: sinks[i]}
		if j.fc != nil {
			parts[i].fence = j.fc.Add
		}
	}
	var start int
	if jobs[0].extends == nil {
		specs, paths := make([]spec, len(jobs)), make([]string, len(jobs))
		for i, j := range jobs {
			specs[i], paths[i] = specOf(j.p.h), j.p.path
		}
		mains, from, err := p.mainParts(specs, paths)
		if err != nil {
			return nil, err
		}
		for i := range parts {
			parts[i].h = mains[i].h
		}
		start = from
	} else {
		for i, j := range jobs {
			parts[i].h, start = tailHeader(j.extends, p.csv.size)
		}
	}
	return p.runParts(ctx, parts, start, writerShape{})
}
