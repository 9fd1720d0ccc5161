package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// explainDiskFull adds to an error of a write that ran out of room what
// happened and what to do: which directory is full, the state the index is
// in (for a failed command: as it was, since writers replace index files
// only when complete), and where spill files can go instead. Other errors
// are returned as they are.
func explainDiskFull(err error, state string) error {
	why, fix := "", "free space there"
	switch {
	case errors.Is(err, syscall.ENOSPC):
		why = "no space left"
	case errors.Is(err, syscall.EDQUOT):
		why, fix = "disk quota exceeded", "free space there or raise the quota"
	case errors.Is(err, syscall.EFBIG):
		why, fix = "file size limit reached", "raise the limit (ulimit -f)"
	default:
		return err
	}
	dir := "the target directory"
	var pe *fs.PathError
	if errors.As(err, &pe) {
		dir = filepath.Dir(pe.Path)
	}
	return fmt.Errorf("%w (%s in %s; %s: %s, or put spill files elsewhere with --tmp-dir and the index with --index)",
		err, why, dir, state, fix)
}
