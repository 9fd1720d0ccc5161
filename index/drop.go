package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

// DropOptions say where the index to drop is.
type DropOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's default index.
	By string
	// IndexDir, when set, is the directory the CSV's indexes live in
	// instead of next to it (see [HomeOf]); IndexPath wins over it.
	IndexDir string
	// NoWait fails at once, with ErrLocked, if another process is writing
	// the index, instead of waiting for it.
	NoWait bool
}

// Drop removes the files of the index of the CSV at csvPath: the main
// index, its tail and fence, the temporary files killed writers left, and
// the writers' lock, last, when no other index of the CSV uses it (see
// lockPath). It removes only what it can tell is csvidx's (see files.go):
// anything else at those paths is an error, and then nothing is removed.
// The CSV need not exist any more. It returns the paths it removed; an
// index none of whose files exist is an error wrapping ErrNoIndex.
//
// Drop holds the lock while it removes the files, the lock file included:
// a writer that was waiting for it then locks the file at the lock path
// (see writerLock).
func Drop(csvPath string, opts *DropOptions) (_ []string, err error) {
	if opts == nil {
		opts = &DropOptions{}
	}
	defer namePath(&err, csvPath, opts.IndexPath)
	o := &Options{IndexPath: opts.IndexPath, By: opts.By, IndexDir: opts.IndexDir}
	h, err := o.home(csvPath)
	if err != nil {
		return nil, err
	}
	idxPath, err := o.locate(csvPath)
	if err != nil {
		return nil, err
	}
	ix := dropFiles(idxPath)
	present := false
	for _, f := range ix.roles() {
		if _, err := os.Lstat(f.path); err == nil && (f.path != ix.lock || !lockInUse(ix.lock)) {
			present = true // a lock is the index's if no other index uses it
		}
	}
	if !present {
		return nil, fmt.Errorf("%w for %s: %s does not exist", ErrNoIndex, csvPath, ix.main)
	}
	return dropIndexes(h, []string{idxPath}, opts.NoWait)
}

// DropAll removes every index of the CSV at csvPath as Drop does, or the
// one opts.IndexPath or opts.By names: each of [Indexes], and what is left
// of an index at the CSV's own paths (CSV.csvidx, the by- names) whose main
// index is gone: its tail, fence, lock. The files of every index are
// checked, under its lock, before any is removed: anything at one of their
// paths that csvidx cannot tell is its own is an error, and then nothing is
// removed. A CSV without any such file is an error wrapping ErrNoIndex.
func DropAll(csvPath string, opts *DropOptions) (_ []string, err error) {
	if opts == nil {
		opts = &DropOptions{}
	}
	if opts.IndexPath != "" || opts.By != "" {
		return Drop(csvPath, opts)
	}
	defer namePath(&err, csvPath, "")
	h, err := HomeOf(csvPath, opts.IndexDir)
	if err != nil {
		return nil, err
	}
	paths, err := h.dropPaths()
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w for %s: %s does not exist", ErrNoIndex, csvPath, h.DefaultIndexPath())
	}
	return dropIndexes(h, paths, opts.NoWait)
}

// dropPaths returns the paths of the indexes of h's CSV that DropAll
// removes: Indexes, then the CSV's own index paths that hold no main index
// but a tail, a fence or a lock. A path where another program's file is
// (see Indexes) is not an index's, nor are the files named after it.
func (h Home) dropPaths() ([]string, error) {
	paths, err := h.Indexes()
	if err != nil {
		return nil, err
	}
	dir, base := filepath.Split(h.stem)
	entries, err := os.ReadDir(readableDir(dir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return paths, nil
		}
		return nil, err
	}
	for _, e := range entries {
		for _, suffix := range []string{".tail", ".fence", ".lock"} {
			name, ok := strings.CutSuffix(e.Name(), suffix)
			if _, by := byColumns(name, base); !ok || name != base+indexSuffix && !by {
				continue
			}
			p := dir + name
			if _, err := os.Lstat(p); err == nil || slices.Contains(paths, p) {
				continue // an index's, listed; or another program's main file
			}
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// dropIndexes takes the locks of the indexes at paths, which checks their
// files, then removes them all, and last each lock file no index uses any
// more.
func dropIndexes(h Home, paths []string, noWait bool) ([]string, error) {
	csv, err := os.Stat(h.csvPath) // to refuse an index path that is the CSV; the CSV may be gone
	if err != nil {
		csv = nil
	}
	ls := newLocks(h, csv, noWait)
	defer ls.unlock()
	if err := ls.lockFiles(paths, dropFiles); err != nil {
		return nil, err
	}
	var removed []string
	for _, p := range ls.paths {
		ix := dropFiles(p)
		for _, f := range ix.roles() {
			if f.path == ix.lock {
				continue
			}
			switch err := atomicfile.Remove(f.path); {
			case err == nil:
				removed = append(removed, f.path)
			case !errors.Is(err, fs.ErrNotExist):
				return removed, err
			}
		}
	}
	for _, l := range ls.held {
		if lockInUse(l.path) {
			continue
		}
		switch ok, err := l.remove(); {
		case err != nil:
			return removed, err
		case ok:
			removed = append(removed, l.path)
		}
	}
	// The indexes of a CSV, or the one Drop removes, are in one directory.
	return removed, atomicfile.SyncDir(filepath.Dir(paths[0]))
}
