// Package tmpfile creates temporary files that only the process can see and
// that vanish when it ends, however it ends: the external sort's spill
// files.
package tmpfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

// Create creates a file for reading and writing in dir, only the process's own: an
// unnamed one where the system has them, else one named TmpName.tmp-csvidx-HEX (see
// atomicfile.TempName), created exclusively with mode 0600 and unlinked at once. It returns
// the path the file still has, if unlinking it failed.
func Create(dir, name string) (*os.File, string, error) {
	if f, err := openUnnamed(dir); err == nil || !errors.Is(err, errNoUnnamed) {
		return f, "", err
	}
	return createUnlinked(dir, name)
}

// createUnlinked is Create where the system has no unnamed files.
func createUnlinked(dir, name string) (*os.File, string, error) {
	if name == "" {
		name = "csvidx-sort"
	}
	for range 100 {
		p := atomicfile.TempName(filepath.Join(dir, name))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if os.Remove(p) != nil {
			return f, p, nil
		}
		return f, "", nil
	}
	return nil, "", fmt.Errorf("no unused temporary name in %s", dir)
}
