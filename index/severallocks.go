package index

import (
	"io/fs"
	"slices"
)

// severalLocks are the writers' locks held by a writer of several indexes
// of a CSV. CSV.csvidx's lock comes first, taken before the writer decides
// which indexes it writes (a build places new indexes under it); the
// others follow in the order of their paths. Every writer of several
// indexes locks in that order, and a writer of one index holds one lock,
// so no two writers can each wait for the other.
type severalLocks struct {
	csvPath string
	csv     fs.FileInfo // the CSV's stat; nil when it is gone (for Drop)
	noWait  bool
	held    []*writerLock
	paths   []string // the indexes whose locks are held
}

// lockFirst takes the lock of CSV.csvidx for a writer of several indexes
// of the CSV at csvPath.
func lockFirst(csvPath string, noWait bool) (*severalLocks, error) {
	f, csv, err := openInput(csvPath)
	if err != nil {
		return nil, err
	}
	f.Close()
	ls := &severalLocks{csvPath: csvPath, csv: csv, noWait: noWait}
	if err := ls.lockRest([]string{DefaultIndexPath(csvPath)}); err != nil {
		ls.unlock()
		return nil, err
	}
	return ls, nil
}

// lockRest takes the locks of paths not held yet, CSV.csvidx's first and
// the others in the order of their paths, each after checking the files of
// its index (see lockFiles). On an error, the locks taken stay held until
// unlock.
func (ls *severalLocks) lockRest(paths []string) error {
	first := DefaultIndexPath(ls.csvPath)
	todo := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == first || slices.Contains(ls.paths, p) })
	slices.Sort(todo)
	if slices.Contains(paths, first) && !slices.Contains(ls.paths, first) {
		todo = append([]string{first}, todo...)
	}
	for _, p := range slices.Compact(todo) {
		l, err := lockFiles(indexFiles(p), ls.csv, ls.noWait)
		if err != nil {
			return err
		}
		ls.held, ls.paths = append(ls.held, l), append(ls.paths, p)
	}
	return nil
}

// unlock releases the locks, the last taken first.
func (ls *severalLocks) unlock() {
	for _, l := range slices.Backward(ls.held) {
		l.unlock()
	}
}
