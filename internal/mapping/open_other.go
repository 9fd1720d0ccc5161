//go:build !unix

package mapping

import "os"

// Open opens the file at path for reading.
func Open(path string) (*os.File, error) { return os.Open(path) }
