package source

import (
	"os"
	"syscall"
)

// ChangeTime returns when the file's inode last changed (its ctime), which,
// unlike the modification time, no user can set back.
func ChangeTime(fi os.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ctim.Nano(), true
}
