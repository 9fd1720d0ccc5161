// Package atomicfile replaces files so that a reader or a crash sees either
// the old contents or the new ones, never a mix or a torn file.
//
// The new contents go to a temporary file in the target's directory, which
// Commit syncs, closes and renames over the target, and then syncs the
// directory so that the rename itself is durable. A process that had the old
// file open keeps reading the old contents. Until Commit, the target is
// untouched; Abort (or a crash) leaves only a temporary file named
// TARGET.tmp-csvidx-HEX (16 lowercase hex digits), a name no user picks,
// which [Leftovers] finds. Temporary files are created exclusively and
// never through a symbolic link.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

const (
	tempInfix  = ".tmp-csvidx-" // temporary files are named TARGET.tmp-csvidx-HEX
	randDigits = 16             // lowercase hex digits of HEX: a random uint64
)

// TempName returns a fresh temporary name for target.
func TempName(target string) string {
	return fmt.Sprintf("%s%s%0*x", target, tempInfix, randDigits, rand.Uint64())
}

// IsTempName reports whether name, a base name, is a temporary name that
// TempName makes for the base name target: target, the infix, then exactly
// randDigits lowercase hex digits.
func IsTempName(name, target string) bool {
	hex, ok := strings.CutPrefix(name, target+tempInfix)
	if !ok || len(hex) != randDigits {
		return false
	}
	for _, c := range []byte(hex) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// BlockSize is the unit of direct I/O: with a File opened for it, every
// write must be a whole number of blocks, from memory aligned to a block, at
// an offset that is a multiple of a block.
const BlockSize = 4096

// File is a temporary file that becomes the target on Commit.
type File struct {
	*os.File
	target string
	direct bool // writes bypass the page cache
	done   bool
}

// Create starts a replacement of target. With direct, the file is opened for
// direct I/O where the system allows it (O_DIRECT on Linux): writes go to the
// disk without passing through the page cache, which on virtual machines can
// be several times faster for a large file, and leaves the cache to the data
// being read. [File.Direct] says whether it took; the writes must then follow
// the rules of [BlockSize], else they fail, or are retried without direct
// I/O where the system refuses them with EINVAL. The file is created with
// the permission bits of perm, less the umask.
func Create(target string, direct bool, perm fs.FileMode) (*File, error) {
	dir := filepath.Dir(target)
	for range 1000 {
		name := TempName(target)
		if err := fault("create", name); err != nil {
			return nil, err
		}
		f, isDirect, err := create(name, direct, perm.Perm())
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &File{File: f, target: target, direct: isDirect}, nil
	}
	return nil, errors.New("atomicfile: no unused temporary name in " + dir)
}

// Direct reports whether writes bypass the page cache.
func (f *File) Direct() bool { return f.direct }

// Write writes p at the file's offset.
func (f *File) Write(p []byte) (int, error) {
	if err := fault("write", f.Name()); err != nil {
		return 0, err
	}
	n, err := f.File.Write(p)
	if err != nil && f.direct && n == 0 && refused(err) && f.undirect() == nil {
		return f.File.Write(p)
	}
	return n, err
}

// WriteAt writes p at off.
func (f *File) WriteAt(p []byte, off int64) (int, error) {
	if err := fault("write", f.Name()); err != nil {
		return 0, err
	}
	n, err := f.File.WriteAt(p, off)
	if err != nil && f.direct && n == 0 && refused(err) && f.undirect() == nil {
		return f.File.WriteAt(p, off)
	}
	return n, err
}

// Commit makes the written contents the target's, durably.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	f.done = true
	err := fault("sync", f.Name())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fault("rename", f.target)
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
	if err := fault("syncdir", dir); err != nil {
		return err
	}
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

// Leftovers returns the paths in target's directory with temporary names
// of target (see IsTempName): what interrupted replacements of target may
// have left behind. The caller decides, from their contents, which are
// its own to remove.
func Leftovers(target string) ([]string, error) {
	found, err := filepath.Glob(escapeGlob(target) + tempInfix + "*")
	base := filepath.Base(target)
	left := found[:0]
	for _, p := range found {
		if IsTempName(filepath.Base(p), base) {
			left = append(left, p)
		}
	}
	return left, err
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

// addr returns the address of b's first byte.
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// AlignedBlocks returns zeroed memory for n blocks, aligned to BlockSize, as
// direct I/O needs.
func AlignedBlocks(n int) []byte {
	b := make([]byte, (n+1)*BlockSize)
	skip := (BlockSize - int(addr(b)%BlockSize)) % BlockSize
	return b[skip : skip+n*BlockSize : skip+n*BlockSize]
}
