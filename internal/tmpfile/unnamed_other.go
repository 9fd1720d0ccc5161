//go:build !linux

package tmpfile

import (
	"errors"
	"os"
)

// errNoUnnamed means the system or the file system cannot make unnamed files.
var errNoUnnamed = errors.New("no unnamed files here")

// openUnnamed returns errNoUnnamed: only Linux makes unnamed files.
func openUnnamed(string) (*os.File, error) { return nil, errNoUnnamed }
