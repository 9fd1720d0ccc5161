//go:build unix

package remoteindex

import (
	"io/fs"
	"syscall"
)

// diskBytes returns the bytes a file takes on disk: of a cache's sparse
// copy of an index, the pages fetched, not its size.
func diskBytes(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
