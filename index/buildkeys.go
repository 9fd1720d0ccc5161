package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/sorter"
)

// BuildIndexes builds an index of the CSV at csvPath by each of keys (key
// specs, see [BuildOptions].Key) in one scan of the file, and puts each
// where the file's indexes go (see the package documentation): where the
// file's index of the same columns is, else at CSV.csvidx if no index is
// there, else at the key's by- name. The file's other indexes stay as they
// are. opts.Key is ignored, and opts.IndexPath may only be set for one
// key. Two keys of the same columns are an error.
//
// Each index is replaced atomically on its own, one after the other once
// all are written: a build that fails or is interrupted leaves each index
// as it was or new, each whole and true to the CSV. It returns a
// description of each new index, in the order of keys.
func BuildIndexes(ctx context.Context, csvPath string, keys []string, opts *BuildOptions) (_ []*Info, err error) {
	if opts == nil {
		opts = &BuildOptions{}
	}
	defer namePath(&err, csvPath, opts.IndexPath)
	switch {
	case len(keys) == 0:
		return nil, errors.New("no key to build an index by")
	case len(keys) > scan.MaxKeys:
		return nil, fmt.Errorf("%d keys: one build makes at most %d indexes", len(keys), scan.MaxKeys)
	case len(keys) > 1 && opts.IndexPath != "":
		return nil, fmt.Errorf("%d keys and one index path: an index path is for one index", len(keys))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sp, err := opts.spec()
	if err != nil {
		return nil, err
	}
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	csv, err := openCSV(csvPath, mapping.Sequential)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	specs, err := keySpecs(csv, sp, keys)
	if err != nil {
		return nil, err
	}
	paths, unlock, err := placeAndLock(csvPath, specs, opts)
	if err != nil {
		return nil, err
	}
	defer unlock()
	csv.releaseAfterScan = true
	p := &pipeline{csv: csv, spec: specs[0], res: opts.Resources, progress: opts.Progress}
	bs, err := p.writeMains(ctx, specs, paths)
	if err != nil {
		return nil, err
	}
	infos := make([]*Info, len(bs))
	for j, b := range bs {
		infos[j] = newInfo(csvPath, paths[j], b.h, int64(b.h.size()), int64(b.h.scanned))
		infos[j].Build = b.scan
		infos[j].setState()
		if n, err := strconv.Atoi(keys[j]); err == nil && n != infos[j].KeyColumn {
			infos[j].KeyNote = fmt.Sprintf("the key %q is the name of column %d, which was taken, not column %d; for column %d, give its name from the header", keys[j], infos[j].KeyColumn, n, n)
		}
	}
	return infos, nil
}

// keySpecs resolves each key against the CSV's header in sp's dialect, and
// refuses two keys of the same columns.
func keySpecs(csv *csvFile, sp spec, keys []string) ([]spec, error) {
	specs := make([]spec, len(keys))
	for j, key := range keys {
		specs[j] = sp
		specs[j].key = key
		if _, _, err := mainHeader(csv, &specs[j]); err != nil {
			return nil, err
		}
		for i := range j {
			if slices.Equal(specs[i].keyCols, specs[j].keyCols) {
				return nil, fmt.Errorf("the keys %q and %q are the same columns (%s): name each index once", keys[i], key, columnsSpec(specs[j].keyCols))
			}
		}
	}
	return specs, nil
}

// placeAndLock decides where each index of specs goes and takes the
// writers' lock of each, and returns the paths and what releases the
// locks. Placing is done under the lock of CSV.csvidx, so that two builds
// of new keys cannot both take that place; the other locks are taken in
// the order of their paths, after it.
func placeAndLock(csvPath string, specs []spec, opts *BuildOptions) ([]string, func(), error) {
	if opts.IndexPath != "" {
		lock, err := lockIndex(csvPath, opts.IndexPath, opts.NoWait)
		if err != nil {
			return nil, nil, err
		}
		return []string{opts.IndexPath}, lock.unlock, nil
	}
	var locks []*writerLock
	unlock := func() {
		for _, l := range slices.Backward(locks) {
			l.unlock()
		}
	}
	first := DefaultIndexPath(csvPath)
	lock, err := lockIndex(csvPath, first, opts.NoWait)
	if err != nil {
		return nil, nil, err
	}
	locks = append(locks, lock)
	found, err := ReadIndexKeys(csvPath)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	paths := make([]string, len(specs))
	for j, sp := range specs {
		paths[j] = placeIndex(csvPath, sp.keyCols, found, paths[:j])
	}
	others := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == first })
	sort.Strings(others)
	for _, p := range others {
		lock, err := lockIndex(csvPath, p, opts.NoWait)
		if err != nil {
			unlock()
			return nil, nil, err
		}
		locks = append(locks, lock)
	}
	return paths, unlock, nil
}

// writeMains builds a main index at each of paths, by the key of the spec
// of the same place, in one scan, and puts each in place as writeMain
// does, one after the other once all are written.
func (p *pipeline) writeMains(ctx context.Context, specs []spec, paths []string) ([]*built, error) {
	if len(specs) == 1 {
		p.spec = specs[0]
		b, err := p.writeMain(ctx, paths[0])
		return []*built{b}, err
	}
	k := len(specs)
	share := p.res
	share.MemLimit = p.res.limit() / int64(k)
	shape := share.writeShape()
	sinks := make([]pageSink, k)
	fences := make([]func(uint64) error, k)
	var bs []*built
	// Each file is opened within the one before, and all are written in the
	// innermost: the files are put in place from the last to the first.
	var write func(j int) error
	write = func(j int) error {
		return writeIndexFile(paths[j], p.csv.perm, shape, true, func(sink pageSink, fence func(uint64) error) (*header, error) {
			sinks[j], fences[j] = sink, fence
			if j+1 < k {
				if err := write(j + 1); err != nil {
					return nil, err
				}
			} else {
				var err error
				if bs, err = p.runKeys(ctx, specs, paths, shape, sinks, fences); err != nil {
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

// runKeys is run for several main indexes: one scan of the CSV hands each
// key's records to a sorter of its own, and each sorter's records are then
// packed into its file's sink, with its fence.
func (p *pipeline) runKeys(ctx context.Context, specs []spec, paths []string, shape writerShape, sinks []pageSink, fences []func(uint64) error) ([]*built, error) {
	plan, opts := p.res.planKeys(paths[0], shape, int64(len(p.csv.data)), len(specs))
	srts := make([]*sorter.Sorter, len(specs))
	for j := range srts {
		o := opts
		o.TmpName = spillName(paths[j])
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
		if bs, err = p.scanKeys(ctx, specs, plan, srts); err != nil {
			return err
		}
		for j, srt := range srts {
			p.fence = fences[j]
			if err := p.pack(ctx, srt, sinks[j], bs[j].h); err != nil {
				return err
			}
			srt.Close() // its memory is done with
		}
		return nil
	}, p.csv.m)
	if errors.Is(err, mapping.ErrFault) {
		err = ErrChanged // the entry point names the CSV
	}
	return bs, err
}

// scanKeys reads the records of the CSV once and adds each key's to its
// sorter, and returns the header of each index, short of what only its
// writer knows.
func (p *pipeline) scanKeys(ctx context.Context, specs []spec, plan chunked.Plan, srts []*sorter.Sorter) ([]*built, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hs := make([]*header, len(specs))
	keys := make([][]int, len(specs))
	sinks := make([]chunked.Sink, len(specs))
	var start int
	for j := range specs {
		var err error
		if hs[j], start, err = mainHeader(p.csv, &specs[j]); err != nil {
			return nil, err
		}
		keys[j], sinks[j] = specs[j].keyCols, srts[j]
	}
	s := chunked.Scan{Data: p.csv.data, Map: p.csv.m, Delim: specs[0].delim, Keys: keys, Hash: testHash, Plan: plan, Progress: p.progress}
	r, err := s.RunKeys(ctx, start, sinks)
	if err != nil {
		return nil, err
	}
	bs := make([]*built, len(specs))
	for j, h := range hs {
		if bs[j], err = p.scanned(h, r, j, plan.Threads); err != nil {
			return nil, err
		}
	}
	return bs, nil
}
