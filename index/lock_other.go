//go:build !unix && !windows

package index

import (
	"errors"
	"io/fs"
	"os"
)

// errNoLocks says that this system has no file locks csvidx knows.
var errNoLocks = errors.New("csvidx has no writers' lock on this system: its writers run on Unix and Windows")

func openLock(string, fs.FileMode) (*os.File, error) { return nil, errNoLocks }

func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

func flock(*os.File, bool) error { return errNoLocks }
