package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrLocked means another process is writing the index and the caller asked
// not to wait.
var ErrLocked = errors.New("another csvidx is writing this index")

// LockedError is the error of a writer told not to wait (NoWait) that found
// the index's lock held by another writer. It unwraps to ErrLocked. Error
// says to try again; a front end adds how to wait instead, in its own words.
type LockedError struct {
	// Lock is the lock file, INDEX.lock.
	Lock string
}

// Facts returns what is wrong, without what to do about it: the message
// that a front end words its own fix after.
func (e *LockedError) Facts() string {
	return fmt.Sprintf("%v (%s is locked)", ErrLocked, e.Lock)
}

// Error returns the facts and, in neutral words, the fix.
func (e *LockedError) Error() string { return e.Facts() + "; try again when it is done" }

// Unwrap returns ErrLocked.
func (e *LockedError) Unwrap() error { return ErrLocked }

// writerLock is the exclusive lock that writers (build, update, compact)
// hold on INDEX.lock, a file that is never renamed, removed or written, so
// that the lock outlives every index file it protects.
type writerLock struct {
	f *os.File
}

// lockIndex takes the writers' lock of the index at idxPath for a writer
// of the CSV at csvPath, waiting for another writer to finish unless
// noWait. Before any work it checks the CSV (a regular file) and every path
// of the index (see files.go), and again once it holds the lock, when no
// other writer can change them.
// Then it removes the temporary files a killed writer may have left.
func lockIndex(csvPath, idxPath string, noWait bool) (*writerLock, error) {
	f, csv, err := openInput(csvPath)
	if err != nil {
		return nil, err
	}
	f.Close()
	return lockFiles(indexFiles(idxPath), csv, noWait)
}

// lockFiles is lockIndex for the files fs of an index of the CSV whose stat
// is csv (nil when there is no CSV, for Drop).
func lockFiles(ix files, csv fs.FileInfo, noWait bool) (*writerLock, error) {
	if err := ix.checkWritable(csv); err != nil { // before the lock file is made
		return nil, err
	}
	perm := fs.FileMode(0o644)
	if csv != nil {
		perm = csv.Mode().Perm()
	}
	lf, err := openLock(ix.lock, perm)
	if err != nil {
		return nil, lockError(ix.lock, err)
	}
	// What was checked is what was opened: the lock path may have changed in between.
	if st, err := lf.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() != 0 || os.SameFile(st, csv) {
		lf.Close()
		if err != nil {
			return nil, err
		}
		return nil, notOwn(ix.lock, "not an empty regular file (it changed while csvidx opened it)", "try again")
	}
	if err := flock(lf, noWait); err != nil {
		lf.Close()
		if errors.Is(err, ErrLocked) {
			return nil, &LockedError{Lock: ix.lock}
		}
		return nil, fmt.Errorf("lock %s: %w", ix.lock, err)
	}
	l := &writerLock{f: lf}
	if err := ix.checkWritable(csv); err != nil {
		l.unlock()
		return nil, err
	}
	ix.removeLeftovers()
	return l, nil
}

// lockError explains why the lock file could not be opened or created.
func lockError(path string, err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return notOwn(path, "a symbolic link", lockLink)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return fmt.Errorf("lock the index: %w; csvidx writes the index next to the CSV unless told where: give an index path in a directory you can write (--index PATH)", err)
	}
	return fmt.Errorf("lock the index: %w", err)
}

// unlock releases the lock.
func (l *writerLock) unlock() {
	if l != nil {
		l.f.Close() // closing the file releases the lock
	}
}
