package index

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestLockErrorAdvice: a lock file that cannot be made (a read-only
// directory or file system) says to put the index elsewhere; a link where
// the lock goes is refused as not csvidx's.
func TestLockErrorAdvice(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
		own  bool // wraps ErrNotOwn
	}{
		{&os.PathError{Op: "open", Path: "x.lock", Err: fs.ErrPermission}, OptIndexPath, false},
		{&os.PathError{Op: "open", Path: "x.lock", Err: syscall.EROFS}, OptIndexPath, false},
		{&os.PathError{Op: "open", Path: "x.lock", Err: syscall.ELOOP}, "never through a link", true},
		{&os.PathError{Op: "open", Path: "x.lock", Err: syscall.EMFILE}, "too many open files", false},
	} {
		err := lockError("x.lock", c.err)
		if !strings.Contains(err.Error(), c.want) || errors.Is(err, ErrNotOwn) != c.own {
			t.Errorf("lockError(%v) = %v, want it to say %q (ErrNotOwn: %v)", c.err, err, c.want, c.own)
		}
	}
}
