package index

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckNameLength: an index path is refused when a file its writers
// make, the temporary fence INDEX.fence.tmp-csvidx-HEX the longest, would
// have a name past nameMax bytes; the directory's length does not count.
func TestCheckNameLength(t *testing.T) {
	dir := strings.Repeat("d/", 200)
	longest := nameMax - len(".fence.tmp-csvidx-0123456789abcdef")
	if err := checkNameLength(filepath.Join(dir, strings.Repeat("x", longest))); err != nil {
		t.Fatalf("a name of %d bytes: %v", longest, err)
	}
	err := checkNameLength(filepath.Join(dir, strings.Repeat("x", longest+1)))
	if !errors.Is(err, ErrNameTooLong) || !strings.Contains(err.Error(), OptIndexPath) {
		t.Fatalf("a name of %d bytes: %v, want ErrNameTooLong", longest+1, err)
	}
}

// TestLockPath: the indexes of a CSV at its by- names share the lock of
// its first index; any other index path has a lock of its own.
func TestLockPath(t *testing.T) {
	for idx, want := range map[string]string{
		"d/o.csv.csvidx":             "d/o.csv.csvidx.lock",
		"d/o.csv.by-1.csvidx":        "d/o.csv.csvidx.lock",
		"d/o.csv.by-1-20.csvidx":     "d/o.csv.csvidx.lock",
		"d/o.csv.HASH.by-3.csvidx":   "d/o.csv.HASH.csvidx.lock",
		"d/o.csv.by-x.csvidx":        "d/o.csv.by-x.csvidx.lock",
		"d/.by-1.csvidx":             "d/.by-1.csvidx.lock",
		"d/elsewhere.idx":            "d/elsewhere.idx.lock",
		"d/o.csv.by-1.csvidx.backup": "d/o.csv.by-1.csvidx.backup.lock",
	} {
		if got := lockPath(idx); got != want {
			t.Errorf("lockPath(%s) = %s, want %s", idx, got, want)
		}
	}
}
