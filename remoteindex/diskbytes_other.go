//go:build !unix

package remoteindex

import "io/fs"

// diskBytes returns the bytes a file takes on disk, as far as this system
// tells: its size (a sparse file counts whole).
func diskBytes(info fs.FileInfo) int64 { return info.Size() }
