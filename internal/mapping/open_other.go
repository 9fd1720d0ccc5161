//go:build !unix

package mapping

import (
	"io/fs"
	"os"
)

// Open opens the regular file at path for reading and returns it with its
// stat; any other kind of file is an error wrapping ErrNotRegular.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return regular(f)
}
