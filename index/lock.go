package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/csvidx/csvidx/source"
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

// writerLock is the exclusive lock that writers (build, update, compact,
// drop) hold on a lock file, INDEX.lock (see lockPath), which is never
// renamed or written, so that the lock outlives every index file it
// protects.
//
// A lock file is removed only by the writer holding its lock, when no
// index uses it any more (see unlock). A writer that was waiting for the
// lock of a file so removed then holds the lock of a file no longer at the
// path, which locks nothing: it sees that the path does not name the file
// it locked, and locks the file at the path again (see takeLock). So a
// lock is held only on the file at the lock path, by one writer at a time.
type writerLock struct {
	f    *os.File
	path string // the lock file
}

// lockIndex takes the writers' lock of the index at idxPath for a writer
// of the CSV at csvPath, waiting for another writer to finish unless
// noWait. Before any work it checks the CSV (a regular file) and every path
// of the index (see files.go), and again once it holds the lock, when no
// other writer can change them.
// Then it removes the temporary files a killed writer may have left.
func lockIndex(csvPath, idxPath string, noWait bool) (*writerLock, error) {
	csv, err := source.Stat(csvPath)
	if err != nil {
		return nil, err
	}
	return lockFiles(indexFiles(idxPath), csv, noWait)
}

// lockFiles is lockIndex for the files fs of an index of the CSV whose stat
// is csv (nil when there is no CSV, for Drop).
func lockFiles(ix files, csv fs.FileInfo, noWait bool) (*writerLock, error) {
	if err := ix.checkWritable(csv); err != nil { // before the lock file is made
		return nil, err
	}
	l, err := takeLock(ix.lock, csv, noWait)
	if err != nil {
		return nil, err
	}
	if err := ix.checkHeld(csv); err != nil {
		l.unlock()
		return nil, err
	}
	return l, nil
}

// checkHeld is what a writer that holds the lock of ix does before its
// work: it checks ix's paths again, now that no other writer can change
// them, and removes the temporary files a killed writer may have left.
func (ix files) checkHeld(csv fs.FileInfo) error {
	if err := ix.checkWritable(csv); err != nil {
		return err
	}
	ix.removeLeftovers()
	return nil
}

// takeLock locks the lock file at path, creating it (with the CSV's
// permission bits, csv's) if it is absent, and waiting for the writer that
// holds it unless noWait. It locks again the file at path if the file it
// locked was removed meanwhile.
func takeLock(path string, csv fs.FileInfo, noWait bool) (*writerLock, error) {
	perm := fs.FileMode(0o644)
	if csv != nil {
		perm = csv.Mode().Perm()
	}
	for {
		lf, err := openLock(path, perm)
		if err != nil {
			return nil, lockError(path, err)
		}
		// What was checked is what was opened: the lock path may have changed in between.
		st, err := lf.Stat()
		if err != nil || !st.Mode().IsRegular() || st.Size() != 0 || os.SameFile(st, csv) {
			lf.Close()
			if err != nil {
				return nil, err
			}
			return nil, notOwn(path, "not an empty regular file (it changed while csvidx opened it)", "try again")
		}
		if err := flock(lf, noWait); err != nil {
			lf.Close()
			if errors.Is(err, ErrLocked) {
				return nil, &LockedError{Lock: path}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		l := &writerLock{f: lf, path: path}
		if l.atPath() {
			return l, nil
		}
		lf.Close() // its holder removed it: the lock is the file at path now
	}
}

// atPath reports whether the lock file held is the file at its path.
func (l *writerLock) atPath() bool {
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Lstat(l.path)
	return err == nil && os.SameFile(held, now)
}

// remove removes the lock file, if it is still the file at its path; it
// reports whether it did. Only the holder of the lock may call it.
func (l *writerLock) remove() (bool, error) {
	if !l.atPath() {
		return false, nil
	}
	if err := os.Remove(l.path); err != nil {
		return false, err
	}
	return true, nil
}

// lockError explains why the lock file could not be opened or created.
func lockError(path string, err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return notOwn(path, "a symbolic link", lockLink)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return fmt.Errorf("lock the index: %w; csvidx writes the index next to the CSV unless told where: give an index path in a directory you can write %s", err, OptIndexPath)
	}
	return fmt.Errorf("lock the index: %w", err)
}

// unlock releases the lock, after removing the lock file if no index uses
// it any more (see lockInUse): a build that failed leaves no lock file
// behind, nor does a drop.
func (l *writerLock) unlock() {
	if l == nil {
		return
	}
	if !lockInUse(l.path) {
		l.remove() // best effort: a lock file left is harmless, and the next writer removes it
	}
	l.f.Close() // closing the file releases the lock
}

// lockInUse reports whether an index uses the lock file at path: for
// STEM.csvidx.lock, STEM.csvidx or an index at a by- name of STEM (see
// Indexes); for INDEX.lock, INDEX. When it cannot tell, it is in use.
func lockInUse(path string) bool {
	idx := strings.TrimSuffix(path, ".lock")
	if stem, ok := strings.CutSuffix(idx, indexSuffix); ok {
		paths, err := Indexes(stem)
		return err != nil || len(paths) > 0
	}
	_, err := os.Lstat(idx)
	return !errors.Is(err, fs.ErrNotExist)
}

// A FileLock is the writers' lock of a file that csvidx replaces whole, such
// as the manifest of an index over many files (package multifile): the lock
// file PATH.lock, there while it is held.
type FileLock struct{ l *writerLock }

// LockFile takes the writers' lock of the file at path, PATH.lock, created
// if absent: it waits for another process that holds it, or with noWait
// fails with a *LockedError. A lock file that is not an empty regular file
// is never used (ErrNotOwn). Unlock releases it.
func LockFile(path string, noWait bool) (*FileLock, error) {
	l, err := takeLock(path+".lock", nil, noWait)
	if err != nil {
		return nil, err
	}
	return &FileLock{l}, nil
}

// Unlock removes the lock file and releases the lock: a writer waiting for
// it locks the file at its path anew (see takeLock).
func (f *FileLock) Unlock() {
	f.l.remove() // best effort: a lock file left is harmless
	f.l.f.Close()
}
