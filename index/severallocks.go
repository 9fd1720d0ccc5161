package index

import (
	"slices"
	"sort"
)

// severalLocks are the writers' locks held by a writer of several indexes
// of a CSV. CSV.csvidx's lock comes first, taken before the writer decides
// which indexes it writes (a build places new indexes under it); the
// others follow in the order of their paths. Every writer of several
// indexes locks in that order, and a writer of one index holds one lock,
// so no two writers can each wait for the other.
type severalLocks struct {
	csvPath string
	noWait  bool
	held    []*writerLock
}

// lockFirst takes the lock of CSV.csvidx for a writer of several indexes
// of the CSV at csvPath.
func lockFirst(csvPath string, noWait bool) (*severalLocks, error) {
	l, err := lockIndex(csvPath, DefaultIndexPath(csvPath), noWait)
	if err != nil {
		return nil, err
	}
	return &severalLocks{csvPath: csvPath, noWait: noWait, held: []*writerLock{l}}, nil
}

// lockRest takes the locks of paths other than CSV.csvidx, in the order of
// their paths. On an error, the locks taken stay held until unlock.
func (ls *severalLocks) lockRest(paths []string) error {
	first := DefaultIndexPath(ls.csvPath)
	others := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == first })
	sort.Strings(others)
	for _, p := range slices.Compact(others) {
		l, err := lockIndex(ls.csvPath, p, ls.noWait)
		if err != nil {
			return err
		}
		ls.held = append(ls.held, l)
	}
	return nil
}

// unlock releases the locks, the last taken first.
func (ls *severalLocks) unlock() {
	for _, l := range slices.Backward(ls.held) {
		l.unlock()
	}
}
