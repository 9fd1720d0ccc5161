package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
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
	sp, err := opts.spec(csvPath)
	if err != nil {
		return nil, err
	}
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	csv, err := openBuilt(csvPath, mapping.Sequential, sp.delim, source.WalkOptions{Span: opts.GzipSpan}, opts.PlainFrom)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	var specs []spec
	err = csv.guard(func() (err error) {
		specs, err = keySpecs(csv, sp, keys)
		return err
	})
	if err != nil {
		return nil, err
	}
	h, herr := HomeOf(csvPath, opts.IndexDir)
	switch {
	case herr != nil && opts.IndexPath == "":
		return nil, herr
	case herr != nil: // IndexPath wins over IndexDir: the home only says whether the index is the default
		h = nextTo(csvPath)
	}
	paths, unlock, err := placeAndLock(h, specs, opts)
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
		infos[j] = newInfo(csvPath, paths[j], b.h, int64(b.h.Size()), int64(b.h.Scanned))
		infos[j].Build = b.scan
		infos[j].setState()
		infos[j].Default = herr == nil && h.isDefault(paths[j])
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
				return nil, fmt.Errorf("the keys %q and %q are the same columns (%s): name each index once", keys[i], key, keyspec.Spec(specs[j].keyCols))
			}
		}
	}
	return specs, nil
}

// placeAndLock decides where each index of specs goes and takes the
// writers' lock of each, and returns the paths and what releases the
// locks. Placing is done under the lock of CSV.csvidx, so that two builds
// of new keys cannot both take that place; it is the lock of every index
// at the CSV's own paths (see lockPath), and the files of each are checked
// under it (see severalLocks).
func placeAndLock(h Home, specs []spec, opts *BuildOptions) ([]string, func(), error) {
	csvPath := h.csvPath
	if opts.IndexPath != "" {
		if err := checkNameLength(opts.IndexPath); err != nil {
			return nil, nil, err
		}
		lock, err := lockIndex(csvPath, opts.IndexPath, opts.NoWait)
		if err != nil {
			return nil, nil, err
		}
		return []string{opts.IndexPath}, lock.unlock, nil
	}
	ls, err := lockFirst(h, opts.NoWait)
	if err != nil {
		return nil, nil, err
	}
	found, err := h.readIndexKeys()
	if err != nil {
		ls.unlock()
		return nil, nil, err
	}
	paths := make([]string, len(specs))
	for j, sp := range specs {
		paths[j] = h.placeIndex(sp.keyCols, found, paths[:j])
		if err := checkNameLength(paths[j]); err != nil {
			ls.unlock()
			return nil, nil, err
		}
	}
	if err := ls.lockRest(paths); err != nil {
		ls.unlock()
		return nil, nil, err
	}
	return paths, ls.unlock, nil
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
	parts, start, err := p.mainParts(specs, paths)
	if err != nil {
		return nil, err
	}
	return p.writeParts(ctx, parts, start, true)
}
