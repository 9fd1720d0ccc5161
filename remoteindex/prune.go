package remoteindex

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// DefaultCacheMax is the most bytes the cache of remote indexes keeps:
// past it, an opening removes the entries used least lately.
const DefaultCacheMax = 1 << 30

// prune removes from the cache under base the entries used least lately
// (by their state's modification time, which each opening renews) until
// the rest take at most max bytes on disk, sparing keep, the entry in use.
func prune(base, keep string, max int64) error {
	dirs, err := os.ReadDir(base)
	if err != nil {
		return err
	}
	type entry struct {
		dir   string
		used  time.Time
		bytes int64
	}
	var entries []entry
	total := int64(0)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(base, d.Name())
		e := entry{dir: dir}
		if st, err := os.Stat(filepath.Join(dir, "state.json")); err == nil {
			e.used = st.ModTime()
		}
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if info, err := f.Info(); err == nil {
				e.bytes += diskBytes(info)
			}
		}
		total += e.bytes
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.used.UnixNano(), b.used.UnixNano()) })
	for _, e := range entries {
		if total <= max {
			break
		}
		if e.dir == keep {
			continue
		}
		if err := os.RemoveAll(e.dir); err != nil {
			return err
		}
		total -= e.bytes
	}
	return nil
}

// touch marks the entry dir used now.
func touch(dir string) {
	now := time.Now()
	os.Chtimes(filepath.Join(dir, "state.json"), now, now)
}
