package tmpfile

import (
	"os"
	"testing"
)

// TestCreateUnlinked: where the system has no unnamed files, a spill file is created under
// a temporary name and unlinked at once; it works as a file all the same.
func TestCreateUnlinked(t *testing.T) {
	dir := t.TempDir()
	f, named, err := createUnlinked(dir, "x.csvidx.sort")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if named != "" {
		t.Fatalf("the file kept its name %s", named)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d names left in the directory, want none", len(entries))
	}
	if _, err := f.WriteAt([]byte("records"), 0); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 7)
	if _, err := f.ReadAt(got, 0); err != nil || string(got) != "records" {
		t.Fatalf("read back %q, %v", got, err)
	}
}
