// Package atomicfile replaces files so that a reader or a crash sees either
// the old contents or the new ones, never a mix or a torn file.
//
// The new contents go to a temporary file in the target's directory, which
// Commit syncs, closes and renames over the target, and then syncs the
// directory so that the rename itself is durable. A process that had the old
// file open keeps reading the old contents. Until Commit, the target is
// untouched; Abort (or a crash) leaves only a temporary file named
// TARGET.tmp-*, which [Leftovers] finds.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

const tempInfix = ".tmp-" // temporary files are named TARGET.tmp-RANDOM

// File is a temporary file that becomes the target on Commit.
type File struct {
	*os.File
	target string
	done   bool
}

// Create starts a replacement of target.
func Create(target string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(target), filepath.Base(target)+tempInfix+"*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, target: target}, nil
}

// Commit makes the written contents the target's, durably.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	f.done = true
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.target)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return SyncDir(filepath.Dir(f.target))
}

// Abort removes the temporary file, leaving the target as it was. After
// Commit it does nothing, so it can be deferred.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	f.Close()
	return os.Remove(f.Name())
}

// SyncDir makes renames and removals in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Leftovers returns the temporary files that interrupted replacements of
// target left behind.
func Leftovers(target string) ([]string, error) {
	return filepath.Glob(escapeGlob(target) + tempInfix + "*")
}

// escapeGlob quotes the glob metacharacters in a path.
func escapeGlob(p string) string {
	var b []byte
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, p[i])
	}
	return string(b)
}
