package index

import (
	"errors"
	"fmt"
	"os"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

// ErrLocked means another process is writing the index and the caller asked
// not to wait.
var ErrLocked = errors.New("another csvidx is writing this index")

// writerLock is the exclusive lock that writers (build, update, compact)
// hold on INDEX.lock, a file that is never renamed or removed, so that the
// lock outlives every index file it protects.
type writerLock struct {
	f *os.File
}

// lockPath returns the lock file of the index at idxPath.
func lockPath(idxPath string) string { return idxPath + ".lock" }

// lockIndex takes the writers' lock of the index at idxPath, waiting for
// another writer to finish unless noWait. Under the lock it removes the
// temporary files a killed writer may have left.
func lockIndex(idxPath string, noWait bool) (*writerLock, error) {
	f, err := os.OpenFile(lockPath(idxPath), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the index: %w", err)
	}
	if err := flock(f, noWait); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%w (%s is locked); try again when it is done, or leave out --no-wait to wait", ErrLocked, lockPath(idxPath))
		}
		return nil, fmt.Errorf("lock %s: %w", lockPath(idxPath), err)
	}
	removeLeftovers(idxPath)
	return &writerLock{f: f}, nil
}

// unlock releases the lock.
func (l *writerLock) unlock() {
	if l != nil {
		l.f.Close() // closing the file releases the lock
	}
}

// removeLeftovers removes the temporary files of interrupted writers of the
// index at idxPath: new index, tail and fence files, and spill files kept
// next to the index. Only a lock holder may call it.
func removeLeftovers(idxPath string) {
	for _, target := range []string{idxPath, tailPath(idxPath), fencePath(idxPath)} {
		left, _ := atomicfile.Leftovers(target)
		for _, p := range left {
			os.Remove(p)
		}
	}
}

// fencePath returns where the fence file of the index at idxPath lives.
func fencePath(idxPath string) string { return idxPath + ".fence" }
