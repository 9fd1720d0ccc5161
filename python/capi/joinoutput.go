//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/join"
)

// csvidx_join's out, treated as `> out` treats it in a shell, but for a
// regular file replaced whole once the join is done:
//   - "", a directory, a socket, a block device, a symbolic link to
//     nothing and a path in no directory are refused before LEFT is read;
//   - a FIFO or a character device is opened and written through, never
//     replaced (a FIFO waits for its reader, as a shell's redirection does);
//   - a regular file, or the file a symbolic link names, is replaced by
//     renaming a temporary file beside it over it, keeping its permission
//     bits; the temporary file is created before LEFT is read, so an
//     unwritable directory is found before any work;
//   - an absent out is created, empty, once RIGHT's index is open (as the
//     shell creates it before the command runs), and removed again if the
//     join fails; the output then has 0666 less the umask;
//   - a regular file that is LEFT, RIGHT or one of RIGHT's index files,
//     through any link, is refused before the join runs
//     (join.Join.CheckOutput). Creating an absent out first is what lets
//     that check see a path of RIGHT's index that does not exist yet (its
//     tail), which the output would otherwise create. It is created only
//     after RIGHT's index is open, which would take it for a broken tail.

// joinOutput is where csvidx_join writes its output.
type joinOutput struct {
	name    string           // out as the caller gave it, for messages
	path    string           // the file written or replaced: out, or what its link names
	st      fs.FileInfo      // what is at path; nil while it is absent
	created bool             // the join created path (empty) and removes it on failure
	tmp     *atomicfile.File // the replacement of a regular file; nil for a stream
}

// openOutput checks out and, for a regular file, present or absent,
// creates the temporary file that replaces it.
func openOutput(out string) (*joinOutput, error) {
	o := &joinOutput{name: out, path: out}
	if out == "" {
		return nil, o.errorf("is not a path: give the file to write the join's output to")
	}
	lst, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir, err := os.Stat(filepath.Dir(out))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, o.errorf("is in %s, which does not exist", filepath.Dir(out))
		}
		if err != nil {
			return nil, o.wrap(err)
		}
		if !dir.IsDir() {
			return nil, o.errorf("is in %s, which is %s", filepath.Dir(out), mapping.Kind(dir.Mode()))
		}
		return o, o.replace(0)
	case err != nil:
		return nil, o.wrap(err)
	case lst.Mode().Type() == fs.ModeSymlink:
		if o.path, err = filepath.EvalSymlinks(out); errors.Is(err, fs.ErrNotExist) {
			return nil, o.errorf("is a symbolic link to a file that does not exist: give the file itself")
		} else if err != nil {
			return nil, o.wrap(err)
		}
		if o.st, err = os.Stat(o.path); err != nil {
			return nil, o.wrap(err)
		}
	default:
		o.st = lst
	}
	switch t := o.st.Mode().Type(); {
	case t == 0:
		return o, o.replace(o.st.Mode().Perm())
	case t == fs.ModeNamedPipe || t == fs.ModeDevice|fs.ModeCharDevice:
		return o, nil
	case t == fs.ModeDir:
		return nil, o.errorf("is a directory: give a file's path, such as %s", pyRepr(filepath.Join(out, "joined.csv")))
	}
	return nil, o.errorf("is %s: give a regular file, a FIFO or a character device", mapping.Kind(o.st.Mode()))
}

// replace starts the replacement of the regular file at path, with the
// permission bits perm, or 0666 less the umask for 0 (a file to create).
func (o *joinOutput) replace(perm fs.FileMode) error {
	tmp, err := atomicfile.Create(o.path, false, 0o666)
	if err == nil && perm != 0 {
		if err = tmp.Chmod(perm); err != nil {
			tmp.Abort()
		}
	}
	if err != nil {
		return o.wrap(err)
	}
	o.tmp = tmp
	return nil
}

// write checks that out is none of j's inputs, then runs j into out. Call
// abandon after it.
func (o *joinOutput) write(ctx context.Context, j *join.Join) (int64, error) {
	if o.st == nil {
		if err := o.create(); err != nil {
			return 0, err
		}
	}
	var same *join.OutputIsInputError
	if errors.As(j.CheckOutput(o.st), &same) {
		return 0, o.errorf("is %s: the join would read or overwrite its own input; give another file", same.What)
	}
	var w io.Writer = o.tmp
	if o.tmp == nil {
		f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
		if err != nil {
			return 0, o.wrap(err)
		}
		defer f.Close()
		w = f
	}
	n, err := j.Run(ctx, writer{w, o})
	if err == nil && o.tmp != nil {
		if err = o.tmp.Commit(); err != nil {
			err = o.wrap(err)
		}
	}
	if err == nil {
		o.created = false
	}
	return n, err
}

// create creates the absent out, empty, as a shell's `> out` does.
func (o *joinOutput) create() error {
	f, err := os.OpenFile(o.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return o.wrap(err)
	}
	o.created = true
	o.st, err = f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return o.wrap(err)
	}
	return nil
}

// abandon removes the temporary file, and out if the join created it and
// it is still the empty file it created.
func (o *joinOutput) abandon() {
	if o.tmp != nil {
		o.tmp.Abort()
	}
	if !o.created || o.st == nil {
		return
	}
	o.created = false
	if st, err := os.Lstat(o.path); err == nil && os.SameFile(st, o.st) && st.Size() == 0 {
		os.Remove(o.path)
	}
}

// errorf returns an error that says what is wrong with out.
func (o *joinOutput) errorf(format string, args ...any) error {
	return fmt.Errorf("out=%s "+format, append([]any{pyRepr(o.name)}, args...)...)
}

// wrap returns err, a failure to use out, as an error about out: without
// the name of the file or of the system call (the temporary file's name
// means nothing to the caller).
func (o *joinOutput) wrap(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return o.errorf("was closed by its reader before all of the join's output was written")
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("out=%s: %w", pyRepr(o.name), err)
}

// writer is out's writer, whose errors say that they are about out.
type writer struct {
	w io.Writer
	o *joinOutput
}

func (w writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		err = w.o.wrap(err)
	}
	return n, err
}
