package index

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/mapping"
)

// The files of an index, and the rules for touching them.
//
// An index at INDEX (CSV.csvidx unless told otherwise) is three files: the
// main index INDEX, its tail INDEX.tail (after an update) and its fence
// INDEX.fence; its writers hold a lock on a fourth, INDEX.lock. The indexes
// of a CSV share one lock: the lock of an index at a by- name,
// STEM.by-COLS.csvidx, is STEM.csvidx.lock, the lock of the index at
// STEM.csvidx (see lockPath). The lock file is there while an index uses
// it: the writer that leaves no index behind (a first build that fails, a
// drop) removes it. Writers put new files in place by renaming a temporary
// file, INDEX.tmp-csvidx-HEX and the like, over them.
//
// csvidx writes, replaces or removes only what it can tell is its own, so a
// mistyped path never costs a user a file:
//   - the CSV is never one of an index's files, through any link;
//   - every path of an index is absent or a regular file: a directory, FIFO,
//     device or socket is refused before any work starts, and a path that
//     is a symbolic link is never written or replaced;
//   - an existing main index, tail or fence is replaced only if it begins
//     with its kind's magic; a lock file is used only if it is empty (it is
//     never written: a read-only descriptor holds the lock);
//   - a leftover temporary file is removed only under the lock, only under a
//     name that [atomicfile.TempName] makes, and only if it is empty, all
//     zeros so far (writers write the header page last) or begins with an
//     index's or a fence's magic;
//   - spill files have no name at all (see sorter), so nothing is left of
//     them to find.

// files are the paths of an index's files.
type files struct {
	main, tail, fence, lock string
	// oldLock, set for a drop of an index at a by- name, is INDEX.lock:
	// such an index's own lock before the indexes of a CSV shared one.
	oldLock string
}

// indexFiles returns the files of the index at idxPath.
func indexFiles(idxPath string) files {
	return files{main: idxPath, tail: tailPath(idxPath), fence: fencePath(idxPath), lock: lockPath(idxPath)}
}

// tailPath returns where the tail of the index at idxPath lives.
func tailPath(idxPath string) string { return idxPath + ".tail" }

// fencePath returns where the fence file of the index at idxPath lives.
func fencePath(idxPath string) string { return idxPath + ".fence" }

// lockPath returns the lock file of the index at idxPath: INDEX.lock, or
// for an index at a by- name, STEM.by-COLS.csvidx, the lock of every index
// of its CSV, STEM.csvidx.lock. It depends on the index's path alone, so
// that every writer of one index file takes one lock, whatever CSV it
// names.
func lockPath(idxPath string) string {
	dir, name := filepath.Split(idxPath)
	if stem, ok := byStem(name); ok {
		return dir + stem + indexSuffix + ".lock"
	}
	return idxPath + ".lock"
}

// dropFiles returns the files of the index at idxPath that a drop removes:
// its files, and for an index at a by- name the lock it had of its own
// before the indexes of a CSV shared one.
func dropFiles(idxPath string) files {
	ix := indexFiles(idxPath)
	if old := idxPath + ".lock"; old != ix.lock {
		ix.oldLock = old
	}
	return ix
}

// spillName names spill files where the system cannot make unnamed ones
// (see sorter.Options.TmpName): INDEXNAME.sort.tmp-csvidx-HEX.
func spillName(idxPath string) string { return filepath.Base(idxPath) + ".sort" }

// ErrNameTooLong means the files of an index would have names longer than
// a file system allows: a composite key of many wide column numbers at its
// by- name, or a long index path. Nothing was written.
var ErrNameTooLong = errors.New("file name too long")

// nameMax is the longest file name, in bytes, that csvidx makes: NAME_MAX
// on Linux and macOS, whose file systems allow 255 bytes.
const nameMax = 255

// checkNameLength checks that every file a writer of the index at idxPath
// makes has a name of at most nameMax bytes: the longest is a temporary
// fence file, INDEX.fence.tmp-csvidx-HEX.
func checkNameLength(idxPath string) error {
	base := filepath.Base(idxPath)
	longest := len(atomicfile.TempName(fencePath(base)))
	if longest <= nameMax {
		return nil
	}
	return fmt.Errorf("%w: the files of an index at %s would have names of up to %d bytes, past the %d a file system allows; give the index a shorter path "+OptIndexPath,
		ErrNameTooLong, idxPath, longest, nameMax)
}

// ErrNotOwn means a path where a writer would create, replace or remove one
// of an index's files holds something csvidx cannot tell is its own: the
// CSV, a file of another program, a directory, a FIFO, a device, a link.
// Nothing was written.
var ErrNotOwn = errors.New("not csvidx's file")

// role is one kind of an index's files: what a writer may find at its path.
type role struct {
	name  string // for messages
	magic string // the first bytes of such a file; empty for the lock, which is empty
}

var (
	mainRole  = role{"index", format.Magic}
	tailRole  = role{"tail file", format.Magic}
	fenceRole = role{"fence file", fence.Magic}
	lockRole  = role{"lock file", ""}
)

// roleFile is the path of one of an index's files, with its role.
type roleFile struct {
	path string
	role role
}

// roles returns the paths of ix's files with their roles, the locks last.
func (ix files) roles() []roleFile {
	all := []roleFile{{ix.main, mainRole}, {ix.tail, tailRole}, {ix.fence, fenceRole}}
	if ix.oldLock != "" {
		all = append(all, roleFile{ix.oldLock, lockRole})
	}
	return append(all, roleFile{ix.lock, lockRole})
}

// notOwnError is an error wrapping ErrNotOwn, with its own message.
type notOwnError struct{ msg string }

func (e *notOwnError) Error() string { return e.msg }
func (e *notOwnError) Unwrap() error { return ErrNotOwn }

// notOwn returns the error for path, an index file's path, which holds what:
// csvidx leaves it alone, for the reason why (what fix says to do).
func notOwn(path, what, fix string) error {
	return &notOwnError{fmt.Sprintf("%s is %s; %s", path, what, fix)}
}

const (
	elsewhere = "give another index path " + OptIndexPath
	lockLink  = "csvidx opens its lock file only as a regular file, never through a link: remove the link, or " + elsewhere
)

// checkOwn checks that path, where a writer may put a file of role r, is
// free for it: absent, or a regular file of that role that is not the CSV
// (whose stat is csv).
func checkOwn(path string, r role, csv fs.FileInfo) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case os.SameFile(st, csv):
		return notOwn(path, "the CSV itself", "csvidx never writes the CSV: "+elsewhere)
	case st.Mode()&fs.ModeSymlink != 0:
		if t, err := os.Stat(path); err == nil && os.SameFile(t, csv) {
			return notOwn(path, "a link to the CSV", "csvidx never writes the CSV: "+elsewhere)
		}
		if r == lockRole {
			return notOwn(path, "a symbolic link", lockLink)
		}
		return notOwn(path, "a symbolic link", "csvidx never writes through a link, nor replaces one: give the link's target as the index path "+OptIndexPath+", or remove the link")
	case !st.Mode().IsRegular():
		return notOwn(path, mapping.Kind(st.Mode())+", not a regular file", "csvidx's index files are regular files: "+elsewhere)
	case r.magic == "" && st.Size() > 0:
		return notOwn(path, fmt.Sprintf("not a csvidx %s (those are empty; it holds %d bytes)", r.name, st.Size()), "csvidx uses only its own files: move it away, or "+elsewhere)
	case r.magic == "":
		return nil
	}
	first, err := readStart(path, len(r.magic))
	if err != nil {
		return err
	}
	if string(first) != r.magic { // as lacksMagic, with the error
		return notOwn(path, fmt.Sprintf("not a csvidx %s (it does not start with csvidx's magic)", r.name), "csvidx replaces only its own files: move it away, or "+elsewhere)
	}
	return nil
}

// checkWritable checks every path of ix's index before a writer of it
// starts: see checkOwn. csv is the stat of the CSV.
func (ix files) checkWritable(csv fs.FileInfo) error {
	for _, f := range ix.roles() {
		if err := checkOwn(f.path, f.role, csv); err != nil {
			return err
		}
	}
	return nil
}

// lacksMagic reports whether the file at path can be read and does not
// begin with the magic of r's files: another program's. A file that cannot
// be read may be csvidx's, and says why when it is opened.
func lacksMagic(path string, r role) bool {
	first, err := readStart(path, len(r.magic))
	return err == nil && string(first) != r.magic
}

// readStart returns the first n bytes of the regular file at path (fewer
// if it is shorter), opened without following a symbolic link.
func readStart(path string, n int) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:k], err
}

// removeLeftovers removes the temporary files that interrupted writers of
// the index left, those it can tell are csvidx's (see the rules above).
// Only a lock holder may call it.
func (ix files) removeLeftovers() {
	for _, target := range []string{ix.main, ix.tail, ix.fence, filepath.Join(filepath.Dir(ix.main), spillName(ix.main))} {
		left, _ := atomicfile.Leftovers(target)
		for _, p := range left {
			if leftoverOwn(p) {
				os.Remove(p)
			}
		}
	}
}

// leftoverOwn reports whether the file at p, under a temporary name, is
// what a csvidx writer leaves: a regular file, empty, all zeros so far, or
// starting with an index's or a fence's magic.
func leftoverOwn(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	first, err := readStart(p, format.PageSize)
	if err != nil {
		return false
	}
	return format.AllZero(first) || bytes.HasPrefix(first, []byte(format.Magic)) || bytes.HasPrefix(first, []byte(fence.Magic))
}

// DefaultIndexPath returns where the index of the CSV at csvPath lives
// unless told otherwise.
func DefaultIndexPath(csvPath string) string { return csvPath + ".csvidx" }
