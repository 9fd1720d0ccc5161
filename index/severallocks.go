package index

import (
	"io/fs"
	"slices"

	"github.com/csvidx/csvidx/source"
)

// severalLocks are the writers' locks held by a writer of several indexes
// of a CSV. The indexes of a CSV at its own paths (CSV.csvidx and the by-
// names) share one lock, CSV.csvidx.lock (see lockPath), so such a writer
// holds one lock, taken before it decides which indexes it writes (a build
// places new indexes under it). The locks of other paths, if it had any,
// would follow in the order of their paths: every writer of several
// indexes locks in that order, and a writer of one index holds one lock,
// so no two writers could each wait for the other. A lock file is locked
// once, however many of the indexes share it: a second descriptor of it
// would wait for the first.
type severalLocks struct {
	first  string      // the lock of the CSV's default index, taken first
	csv    fs.FileInfo // the CSV's stat; nil when it is gone (for Drop)
	noWait bool
	held   []*writerLock
	paths  []string // the indexes whose files were checked under a held lock
}

// lockFirst takes the lock of CSV.csvidx for a writer of several indexes
// of h's CSV.
func lockFirst(h Home, noWait bool) (*severalLocks, error) {
	csv, err := source.Stat(h.csvPath)
	if err != nil {
		return nil, err
	}
	ls := newLocks(h, csv, noWait)
	if err := ls.lockRest([]string{h.DefaultIndexPath()}); err != nil {
		ls.unlock()
		return nil, err
	}
	return ls, nil
}

// newLocks returns the locks of a writer of several indexes of h's CSV,
// whose stat is csv, none taken yet.
func newLocks(h Home, csv fs.FileInfo, noWait bool) *severalLocks {
	return &severalLocks{first: lockPath(h.DefaultIndexPath()), csv: csv, noWait: noWait}
}

// lockRest takes the locks of the indexes at paths, those of CSV.csvidx
// first and the others in the order of their lock paths, and checks the
// files of each index under its lock (see lockFiles). On an error, the
// locks taken stay held until unlock.
func (ls *severalLocks) lockRest(paths []string) error {
	return ls.lockFiles(paths, indexFiles)
}

// lockFiles is lockRest with the files of each index as filesOf says.
func (ls *severalLocks) lockFiles(paths []string, filesOf func(string) files) error {
	first := ls.first
	todo := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return slices.Contains(ls.paths, p) })
	slices.SortFunc(todo, func(a, b string) int {
		la, lb := lockPath(a), lockPath(b)
		switch {
		case la == lb:
			return 0
		case la == first:
			return -1
		case lb == first:
			return 1
		case la < lb:
			return -1
		}
		return 1
	})
	for _, p := range slices.Compact(todo) {
		ix := filesOf(p)
		if i := slices.IndexFunc(ls.held, func(l *writerLock) bool { return l.path == ix.lock }); i >= 0 {
			if err := ix.checkHeld(ls.csv); err != nil {
				return err
			}
		} else {
			l, err := lockFiles(ix, ls.csv, ls.noWait)
			if err != nil {
				return err
			}
			ls.held = append(ls.held, l)
		}
		ls.paths = append(ls.paths, p)
	}
	return nil
}

// unlock releases the locks, the last taken first.
func (ls *severalLocks) unlock() {
	for _, l := range slices.Backward(ls.held) {
		l.unlock()
	}
}
