package join

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrOutputIsInput means a join's output is one of its inputs: LEFT, RIGHT
// or one of RIGHT's index files. Writing it would read the join's own
// output back as LEFT until the disk is full (csvidx join a b >> a), or
// overwrite RIGHT or its index. Nothing was written.
var ErrOutputIsInput = errors.New("the output is an input of the join")

// OutputIsInputError is the error of [Join.CheckOutput]: it wraps
// ErrOutputIsInput and says which input the output is.
type OutputIsInputError struct {
	What string // "the left file", "users.csv, the right file", ...
}

func (e *OutputIsInputError) Error() string {
	return fmt.Sprintf("the output is %s, an input of the join", e.What)
}

func (e *OutputIsInputError) Unwrap() error { return ErrOutputIsInput }

// CheckOutput returns an *OutputIsInputError if out, the file a join
// would write its output to, is LEFT (when LEFT is a file, or standard
// input redirected from one), RIGHT, or one of the files of RIGHT's
// index, through any link. Only a regular file can be one: a terminal
// that is both standard input and output is not (cat decides the same).
// Call it before Run.
func (j *Join) CheckOutput(out fs.FileInfo) error {
	if out == nil || !out.Mode().IsRegular() {
		return nil
	}
	if j.leftInfo != nil && os.SameFile(out, j.leftInfo) {
		return &OutputIsInputError{"the left file"}
	}
	switch path, what, ok := j.ix.FileOf(out); {
	case ok && what == "the CSV":
		return &OutputIsInputError{path + ", the right file"}
	case ok:
		return &OutputIsInputError{fmt.Sprintf("%s, the right file's %s", path, what)}
	}
	return nil
}

// leftFileInfo returns what LEFT is when left is a file (standard input
// included), for CheckOutput; nil otherwise.
func leftFileInfo(left any) fs.FileInfo {
	f, ok := left.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	return st
}
