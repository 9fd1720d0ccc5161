package index

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/scan/chunked"
)

// severalKeys are the keys TestBuildIndexesEqualsBuilds builds at once: a
// column, a composite key, and another column, over makeCompositeCSV's
// columns (a short row lacks some of them).
var severalKeys = []string{"2", "2,0", "0"}

// TestBuildIndexesEqualsBuilds: each index of a build of several keys in
// one scan is byte for byte the index a build of its key alone writes, in
// one thread or several, in chunks that guess wrong, and at memory limits
// that spill; and each is placed where the scheme says.
func TestBuildIndexesEqualsBuilds(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 36))
	g := makeCompositeCSV(r, 3000, ',', false)
	p := writeCSV(t, g.data)
	var want [][]byte
	for _, key := range severalKeys {
		b, _ := buildBytes(t, p, key, true, Resources{})
		want = append(want, b)
	}
	for i, c := range []struct {
		res Resources
		tu  chunked.Tuning
	}{
		{Resources{Threads: 1}, chunked.Tuning{}},
		{Resources{Threads: 2}, chunked.Tuning{ChunkBytes: 999, NeverPause: true}},
		{Resources{Threads: 3, MemLimit: 64 << 10}, chunked.Tuning{ChunkBytes: 4096, ChunkRecords: 50}},
		{Resources{Threads: 2, MemLimit: 16 << 10}, chunked.Tuning{}},
	} {
		tune(t, c.tu)
		for _, old := range []string{DefaultIndexPath(p), nextTo(p).byPath([]int{2, 0}), nextTo(p).byPath([]int{0})} {
			os.Remove(old)
		}
		infos, err := BuildIndexes(context.Background(), p, severalKeys, &BuildOptions{NoHeader: true, Resources: c.res})
		if err != nil {
			t.Fatal(err)
		}
		wantPaths := []string{DefaultIndexPath(p), nextTo(p).byPath([]int{2, 0}), nextTo(p).byPath([]int{0})}
		for j, info := range infos {
			if info.IndexPath != wantPaths[j] {
				t.Fatalf("case %d: key %q at %s, want %s", i, severalKeys[j], info.IndexPath, wantPaths[j])
			}
			got, err := os.ReadFile(info.IndexPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[j]) {
				t.Fatalf("case %d (%+v): the index by %q differs from a build of it alone", i, c.res, severalKeys[j])
			}
		}
	}
}

// TestSeveralIndexesUpdate appends rows to a file of three indexes: each
// index finds them, each main index is as it was, each compact equals a
// build of its key, and Locate finds each by names and numbers.
func TestSeveralIndexesUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 37))
	g := makeCompositeCSV(r, 400, ';', true)
	p := writeCSV(t, g.data)
	keys := []string{"cola", `"c,c",cola`, "colb"}
	if _, err := BuildIndexes(context.Background(), p, keys, &BuildOptions{Delimiter: ';'}); err != nil {
		t.Fatal(err)
	}
	paths, err := Indexes(p)
	if err != nil || len(paths) != 3 {
		t.Fatalf("indexes %v, %v", paths, err)
	}
	mains := map[string][]byte{}
	for _, path := range paths {
		mains[path], _ = os.ReadFile(path)
	}
	more := makeCompositeCSV(r, 100, ';', false)
	appendCSV(t, p, more.data)
	g.rows = append(g.rows, more.rows...)
	for _, by := range []string{"0", "2,0", "colb"} {
		if _, err := Update(context.Background(), p, &UpdateOptions{By: by, NoCompact: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range paths {
		if now, _ := os.ReadFile(path); !bytes.Equal(now, mains[path]) {
			t.Fatalf("update changed the main index %s", path)
		}
	}
	ix, err := Open(p, &Options{By: "c,c;cola"}) // a key spec is comma-separated: this names no column
	if err == nil {
		ix.Close()
		t.Fatal(`--by "c,c;cola" found an index`)
	}
	ix, err = Open(p, &Options{By: `"c,c",0`})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range nastyKeys[:8] {
		for _, b := range nastyKeys[:8] {
			k, _ := ix.CompositeKey([]byte(a), []byte(b))
			if got, want := get(t, ix, string(k)), g.want(a, b); got != want {
				t.Fatalf("after update: (%q, %q): %q, want %q", a, b, got, want)
			}
		}
	}
	ix.Close()
	ix, err = Open(p, &Options{By: "cola"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range nastyKeys[:8] {
		var want strings.Builder
		for _, row := range g.rows {
			if row.b == v { // every row has column 0
				want.WriteString(row.text)
			}
		}
		if got := get(t, ix, v); got != want.String() {
			t.Fatalf("after update, by cola: %q: %q, want %q", v, got, want.String())
		}
	}
	ix.Close()
	for j, by := range []string{"cola", "2,0", "1"} {
		if _, err := Compact(context.Background(), p, &CompactOptions{By: by}); err != nil {
			t.Fatal(err)
		}
		path, err := Locate(p, by)
		if err != nil {
			t.Fatal(err)
		}
		compacted, _ := os.ReadFile(path)
		out := filepath.Join(t.TempDir(), "fresh.csvidx")
		if _, err := Build(context.Background(), p, &BuildOptions{Key: keys[j], Delimiter: ';', IndexPath: out}); err != nil {
			t.Fatal(err)
		}
		if fresh, _ := os.ReadFile(out); !bytes.Equal(compacted, fresh) {
			t.Fatalf("index by %q: compact differs from a build", by)
		}
	}
	if path, err := Locate(p, ""); err != nil || path != DefaultIndexPath(p) {
		t.Fatalf("Locate without By of a file of 3 indexes: %s, %v, want the default %s", path, err, DefaultIndexPath(p))
	}
	if _, err := Locate(p, "9"); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("Locate of a key without an index: %v, want ErrNoIndex", err)
	}
}

// TestPlaceIndex: a key's index stays where it is, the first index takes
// CSV.csvidx, the others their by- names, and a new key never takes the
// free first place from an index in use: only a file with no index left
// gives it to a build.
func TestPlaceIndex(t *testing.T) {
	p := writeCSV(t, "a,b,c\n1,2,3\n4,5,6\n")
	build(t, p, &BuildOptions{Key: "b"})
	build(t, p, &BuildOptions{Key: "c,a"})
	build(t, p, &BuildOptions{Key: "1"}) // b again: replaced in place
	paths, _ := Indexes(p)
	if want := []string{DefaultIndexPath(p), nextTo(p).byPath([]int{2, 0})}; !slices.Equal(paths, want) {
		t.Fatalf("indexes %v, want %v", paths, want)
	}
	if filepath.Base(nextTo(p).byPath([]int{2, 0})) != filepath.Base(p)+".by-2-0.csvidx" {
		t.Fatalf("by- name %s", nextTo(p).byPath([]int{2, 0}))
	}
	if _, err := Drop(p, &DropOptions{By: "b"}); err != nil {
		t.Fatal(err)
	}
	if info := build(t, p, &BuildOptions{Key: "a"}); info.IndexPath != nextTo(p).byPath([]int{0}) {
		t.Fatalf("with an index by c,a in use, a new key's index went to %s", info.IndexPath)
	}
	for _, by := range []string{"a", "c,a"} {
		if _, err := Drop(p, &DropOptions{By: by}); err != nil {
			t.Fatal(err)
		}
	}
	if info := build(t, p, &BuildOptions{Key: "a"}); info.IndexPath != DefaultIndexPath(p) {
		t.Fatalf("with no index left, a new key's index went to %s", info.IndexPath)
	}
	// Files that only look like by- names are not indexes of the file.
	for _, name := range []string{".by-.csvidx", ".by-x.csvidx", ".by-1-.csvidx", ".by-1.csvidx.tail", "x.by-1.csvidx"} {
		os.WriteFile(p+name, []byte(format.Magic), 0o644)
	}
	if paths, _ := Indexes(p); len(paths) != 1 {
		t.Fatalf("indexes %v: want the real one", paths)
	}
}

// TestIndexesIgnoreForeignByFiles: a file at a by- name that does not
// begin with csvidx's magic is another program's, not an index of the CSV;
// one that does is an index, broken or not, and reading it says so.
func TestIndexesIgnoreForeignByFiles(t *testing.T) {
	p := writeCSV(t, "a,b,c\n1,2,3\n4,5,6\n")
	build(t, p, &BuildOptions{Key: "a"})
	foreign := nextTo(p).byPath([]int{1})
	for _, content := range []string{"a,b,c\n1,2,3\n", "", format.Magic[:len(format.Magic)-1]} {
		if err := os.WriteFile(foreign, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if paths, _ := Indexes(p); !slices.Equal(paths, []string{DefaultIndexPath(p)}) {
			t.Fatalf("%q at a by- name: indexes %v", content, paths)
		}
		if keys, err := ReadIndexKeys(p); err != nil || len(keys) != 1 {
			t.Fatalf("%q at a by- name: keys %v, %v", content, keys, err)
		}
		if _, err := UpdateAll(context.Background(), p, nil); err != nil {
			t.Fatalf("%q at a by- name: update: %v", content, err)
		}
	}
	if err := os.WriteFile(foreign, []byte(format.Magic+"broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if paths, _ := Indexes(p); !slices.Equal(paths, []string{DefaultIndexPath(p), foreign}) {
		t.Fatalf("a broken index at a by- name: indexes %v", paths)
	}
	if _, err := UpdateAll(context.Background(), p, nil); err == nil || !strings.Contains(err.Error(), foreign) {
		t.Fatalf("a broken index at a by- name: update: %v, want an error naming it", err)
	}
}

// TestLocateDefault: without a key to pick by, CSV.csvidx is the index
// found however many by- indexes a build adds, and Info marks it; a file
// of by- indexes only has a default when it has one, and else is
// ErrSeveral.
func TestLocateDefault(t *testing.T) {
	p := writeCSV(t, "a,b,c\n1,2,3\n4,5,6\n")
	build(t, p, &BuildOptions{Key: "a"})
	for _, key := range []string{"b", "c,a"} {
		build(t, p, &BuildOptions{Key: key})
		if path, err := Locate(p, ""); err != nil || path != DefaultIndexPath(p) {
			t.Fatalf("after a build by %s: Locate without By: %s, %v", key, path, err)
		}
		ix, err := Open(p, nil)
		if err != nil {
			t.Fatalf("after a build by %s: Open without By: %v", key, err)
		}
		if got := get(t, ix, "4"); got != "4,5,6\n" {
			t.Fatalf("after a build by %s: the default index found %q", key, got)
		}
		if !ix.Info().Default {
			t.Fatalf("after a build by %s: the default index's Info is not Default", key)
		}
		ix.Close()
		if ix, err = Open(p, &Options{By: key}); err != nil {
			t.Fatal(err)
		}
		if ix.Info().Default {
			t.Fatalf("the index by %s: Info says Default", key)
		}
		ix.Close()
	}
	for _, by := range []string{"", "b", "c,a"} {
		info, err := ReadInfo(p, &Options{By: by})
		if err != nil {
			t.Fatal(err)
		}
		if info.Default != (by == "") {
			t.Fatalf("ReadInfo by %q: Default %v", by, info.Default)
		}
	}
	if _, err := Drop(p, &DropOptions{By: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Locate(p, ""); !errors.Is(err, ErrSeveral) || !strings.Contains(err.Error(), "by b (") {
		t.Fatalf("two by- indexes: Locate without By: %v, want ErrSeveral listing them", err)
	}
	if _, err := Drop(p, &DropOptions{By: "b"}); err != nil {
		t.Fatal(err)
	}
	if path, err := Locate(p, ""); err != nil || path != nextTo(p).byPath([]int{2, 0}) {
		t.Fatalf("one by- index: Locate without By: %s, %v", path, err)
	}
	if info, err := ReadInfo(p, nil); err != nil || !info.Default {
		t.Fatalf("one by- index: ReadInfo: %+v, %v, want it the default", info, err)
	}
}
