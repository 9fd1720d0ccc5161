package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

// DropOptions say where the index to drop is.
type DropOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's default index.
	By string
	// NoWait fails at once, with ErrLocked, if another process is writing
	// the index, instead of waiting for it.
	NoWait bool
}

// Drop removes the files of the index of the CSV at csvPath: the main
// index, its tail and fence, the temporary files killed writers left, and
// the writers' lock, last. It removes only what it can tell is csvidx's
// (see files.go): anything else at those paths is an error, and then
// nothing is removed. The CSV need not exist any more. It returns the paths
// it removed; an index none of whose files exist is an error wrapping
// ErrNoIndex.
//
// Drop holds the lock while it removes the other files, then removes the
// lock file itself: a writer that starts in that moment makes a new one.
func Drop(csvPath string, opts *DropOptions) (_ []string, err error) {
	if opts == nil {
		opts = &DropOptions{}
	}
	defer namePath(&err, csvPath, opts.IndexPath)
	o := &Options{IndexPath: opts.IndexPath, By: opts.By}
	idxPath, err := o.locate(csvPath)
	if err != nil {
		return nil, err
	}
	ix := indexFiles(idxPath)
	present := false
	for _, f := range ix.roles() {
		if _, err := os.Lstat(f.path); err == nil {
			present = true
		}
	}
	if !present {
		return nil, fmt.Errorf("%w for %s: %s does not exist", ErrNoIndex, csvPath, ix.main)
	}
	return dropIndexes(csvPath, []string{idxPath}, opts.NoWait)
}

// DropAll removes every index of the CSV at csvPath (see [Indexes]) as Drop
// does, or the one opts.IndexPath or opts.By names. The files of every
// index are checked, under its lock, before any is removed: anything at one
// of their paths that csvidx cannot tell is its own is an error, and then
// nothing is removed. A CSV without an index is an error wrapping
// ErrNoIndex.
func DropAll(csvPath string, opts *DropOptions) (_ []string, err error) {
	if opts == nil {
		opts = &DropOptions{}
	}
	if opts.IndexPath != "" || opts.By != "" {
		return Drop(csvPath, opts)
	}
	defer namePath(&err, csvPath, "")
	paths, err := Indexes(csvPath)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w for %s: %s does not exist", ErrNoIndex, csvPath, DefaultIndexPath(csvPath))
	}
	return dropIndexes(csvPath, paths, opts.NoWait)
}

// dropIndexes takes the locks of the indexes at paths, which checks their
// files, and then removes them all, each lock file last.
func dropIndexes(csvPath string, paths []string, noWait bool) ([]string, error) {
	csv, err := os.Stat(csvPath) // to refuse an index path that is the CSV; the CSV may be gone
	if err != nil {
		csv = nil
	}
	ls := &severalLocks{csvPath: csvPath, csv: csv, noWait: noWait}
	defer ls.unlock()
	if err := ls.lockRest(paths); err != nil {
		return nil, err
	}
	var removed []string
	for _, p := range ls.paths {
		ix := indexFiles(p)
		for _, p := range []string{ix.main, ix.tail, ix.fence} {
			switch err := atomicfile.Remove(p); {
			case err == nil:
				removed = append(removed, p)
			case !errors.Is(err, fs.ErrNotExist):
				return removed, err
			}
		}
		if err := os.Remove(ix.lock); err != nil {
			return removed, err
		}
		removed = append(removed, ix.lock)
	}
	// The indexes of a CSV, or the one Drop removes, are in one directory.
	return removed, atomicfile.SyncDir(filepath.Dir(paths[0]))
}
