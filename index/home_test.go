package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHomeOf: in an index directory, two CSVs of one base name have
// indexes of different names, one CSV named by two paths that clean to
// one absolute path has one, and a directory that is not there is
// ErrIndexDir. Without one, the indexes are next to the CSV.
func TestHomeOf(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	idx := filepath.Join(dir, "idx")
	if err := os.Mkdir(idx, 0o755); err != nil {
		t.Fatal(err)
	}
	a, _ := HomeOf("a/orders.csv", idx)
	b, _ := HomeOf("b/orders.csv", idx)
	a2, _ := HomeOf(filepath.Join(dir, "b/../a/./orders.csv"), idx)
	if a.stem == b.stem || a.stem != a2.stem {
		t.Fatalf("stems %s, %s, %s", a.stem, b.stem, a2.stem)
	}
	if filepath.Dir(a.stem) != idx || !strings.HasPrefix(filepath.Base(a.stem), "orders.csv.") || len(filepath.Base(a.stem)) != len("orders.csv.")+16 {
		t.Fatalf("stem %s: want %s/orders.csv.HASH", a.stem, idx)
	}
	// A URL is named after the whole URL, as given (not a path under the
	// working directory), its base the last element of its path.
	u1, _ := HomeOf("https://h1/d/orders.csv?X-Sig=1", idx)
	u2, _ := HomeOf("https://h2/d/orders.csv?X-Sig=1", idx)
	t.Chdir(idx)
	u1again, _ := HomeOf("https://h1/d/orders.csv?X-Sig=1", idx)
	if u1.stem == u2.stem || u1.stem != u1again.stem || filepath.Dir(u1.stem) != idx ||
		!strings.HasPrefix(filepath.Base(u1.stem), "orders.csv.") || len(filepath.Base(u1.stem)) != len("orders.csv.")+16 {
		t.Fatalf("stems of URLs %s, %s, %s: want %s/orders.csv.HASH, HASH of the URL", u1.stem, u2.stem, u1again.stem, idx)
	}
	t.Chdir(dir)
	if h, _ := HomeOf("a/orders.csv", ""); h.DefaultIndexPath() != "a/orders.csv.csvidx" {
		t.Fatalf("no index directory: %s", h.DefaultIndexPath())
	}
	for _, bad := range []string{"nope", "a.csv"} {
		os.WriteFile("a.csv", nil, 0o644)
		if _, err := HomeOf("a/orders.csv", bad); !errors.Is(err, ErrIndexDir) {
			t.Fatalf("index directory %s: %v, want ErrIndexDir", bad, err)
		}
	}
}

// TestIndexDir: a build, a lookup, an update and a drop with IndexDir use
// the index directory and leave nothing next to the CSV.
func TestIndexDir(t *testing.T) {
	p := writeCSV(t, "a,b\n1,x\n2,y\n")
	idx := t.TempDir()
	for _, key := range []string{"a", "b"} {
		if _, err := Build(t.Context(), p, &BuildOptions{Key: key, IndexDir: idx}); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := Open(p, &Options{IndexDir: idx, By: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, ix, "y"); got != "2,y\n" {
		t.Fatalf("by b in the index directory: %q", got)
	}
	ix.Close()
	appendCSV(t, p, "3,z\n")
	if _, err := UpdateAll(t.Context(), p, &UpdateOptions{IndexDir: idx, NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, p); len(names) != 1 {
		t.Fatalf("next to the CSV: %v", names)
	}
	removed, err := DropAll(p, &DropOptions{IndexDir: idx})
	if err != nil || len(removed) != 7 { // 2 indexes, their tails and fences, the lock
		t.Fatalf("drop removed %v, %v", removed, err)
	}
	if left, _ := os.ReadDir(idx); len(left) != 0 {
		t.Fatalf("%d files left in the index directory", len(left))
	}
}
