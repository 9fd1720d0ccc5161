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
	if !errors.Is(err, ErrNameTooLong) || !strings.Contains(err.Error(), "--index PATH") {
		t.Fatalf("a name of %d bytes: %v, want ErrNameTooLong", longest+1, err)
	}
}
