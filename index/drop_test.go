package index

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// dirNames returns the names in the directory of p, sorted.
func dirNames(t *testing.T, p string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestDropAllChecksFirst: a file of another program at a path of any
// index of the CSV stops DropAll before it removes anything; once it is
// gone, DropAll removes every index's files and nothing else.
func TestDropAllChecksFirst(t *testing.T) {
	p := writeCSV(t, "a,b,c\n1,2,3\n4,5,6\n")
	for _, key := range []string{"a", "b", "c,a"} {
		build(t, p, &BuildOptions{Key: key})
	}
	last := nextTo(p).byPath([]int{2, 0}) // the last index dropped
	for _, path := range []string{fencePath(last), tailPath(last), lockPath(last)} {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		removed, err := DropAll(p, nil)
		if !errors.Is(err, ErrNotOwn) || len(removed) > 0 {
			t.Fatalf("a foreign %s: DropAll removed %v, %v; want nothing, ErrNotOwn", path, removed, err)
		}
		for _, idx := range []string{DefaultIndexPath(p), nextTo(p).byPath([]int{1}), last} {
			if _, err := os.Stat(idx); err != nil {
				t.Fatalf("a foreign %s: DropAll removed %s", path, idx)
			}
		}
		os.Remove(path)
	}
	removed, err := DropAll(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if now := dirNames(t, p); !slices.Equal(now, []string{filepath.Base(p)}) {
		t.Fatalf("after DropAll (removed %v): %v left", removed, now)
	}
	if _, err := DropAll(p, nil); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("DropAll of no index: %v, want ErrNoIndex", err)
	}
}
