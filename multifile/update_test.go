package multifile

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/atomicfile"
)

// concatOfFiles returns the concatenation of the files names as a build
// reads it (see genParts).
func concatOfFiles(t *testing.T, names []string, header string) []byte {
	t.Helper()
	var c bytes.Buffer
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.Len() == 0:
			c.Write(data)
		case len(data) > 0:
			c.Write(data[len(header):])
		}
		if b := c.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			c.WriteByte('\n')
		}
	}
	return c.Bytes()
}

// checkAgainstOne checks that the index whose manifest is at path answers
// every key as the index of one file holding the concatenation of names
// does, and counts alike, and that Verify finds it equal to a fresh build.
func checkAgainstOne(t *testing.T, path string, names []string) {
	t.Helper()
	want, _ := indexOfOne(t, concatOfFiles(t, names, "id,user,note\n"))
	ctx := context.Background()
	x, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var keys [][]byte
	for u := range 45 {
		keys = append(keys, []byte(fmt.Sprintf("u%d", u)))
	}
	for _, k := range keys {
		if a, b := rowsOf(t, want.Get, [][]byte{k}), rowsOf(t, x.Get, [][]byte{k}); a != b {
			t.Fatalf("%d files: key %s: %q, want %q", len(names), k, b, a)
		}
		wn, _ := want.Count(k)
		if gn, err := x.Count(k); gn != wn || err != nil {
			t.Fatalf("%d files: Count(%s) = %d, %v; want %d", len(names), k, gn, err, wn)
		}
	}
	if a, b := rowsOf(t, want.Get, keys), rowsOf(t, x.Get, keys); a != b {
		t.Fatalf("%d files: all keys at once differ", len(names))
	}
	if info := x.Info(); info.Rows != want.Info().Rows || info.Records != want.Info().Records {
		t.Fatalf("%d files: Info says %d rows, %d records; want %d, %d", len(names), info.Rows, info.Records, want.Info().Rows, want.Info().Records)
	}
	if r, err := Verify(ctx, path, index.Resources{}); err != nil || !r.Equal {
		t.Fatalf("%d files: Verify: %+v, %v", len(names), r, err)
	}
}

// checkLayers checks that every layer of the manifest at path holds more
// than twice the bytes of the next, and that its directory holds the
// manifest, its table, and the index files it lists with their fences,
// and nothing else.
func checkLayers(t *testing.T, path string) *Manifest {
	t.Helper()
	m, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	ls := m.layers()
	for k := 1; k < len(ls); k++ {
		if a, b := ls[k-1].end-ls[k-1].start, ls[k].end-ls[k].start; a <= 2*b {
			t.Fatalf("layer %d holds %d bytes, and the next %d: want more than twice", k-1, a, b)
		}
	}
	want := []string{filepath.Base(path), m.PartsFile}
	for _, f := range m.files() {
		want = append(want, f, f+".fence")
	}
	var got []string
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the index's directory holds %q; want %q", got, want)
	}
	return m
}

// TestUpdate: files added to an index over many files, a few at a time,
// by updates that look for them through the build's pattern (one
// partition) or are named (three), leave an index that answers every key
// as the index of the concatenation of all its files does, that Verify
// finds equal to a fresh build, in few layers, with no file left over; an
// update with nothing new changes nothing.
func TestUpdate(t *testing.T) {
	src := t.TempDir()
	all, _ := genParts(t, src, 44, 7)
	for _, parts := range []int{1, 3} {
		t.Run(fmt.Sprint(parts), func(t *testing.T) {
			dir, out := t.TempDir(), t.TempDir()
			path := filepath.Join(out, "all.idx")
			var names []string
			add := func(n int) {
				for _, s := range all[len(names) : len(names)+n] {
					data, _ := os.ReadFile(s)
					name := filepath.Join(dir, filepath.Base(s))
					if err := os.WriteFile(name, data, 0o644); err != nil {
						t.Fatal(err)
					}
					names = append(names, name)
				}
			}
			ctx := context.Background()
			add(10)
			pattern := filepath.Join(dir, "part-*.csv")
			if parts == 1 {
				if _, _, err := Build(ctx, names, path, &index.BuildOptions{Key: "user"}, NewSources([]string{pattern}, "")); err != nil {
					t.Fatal(err)
				}
			} else {
				runSteps(t, rand.New(rand.NewPCG(1, 2)), names, path, "user", parts, 900)
			}
			order := slices.Clone(names) // the concatenation's: new files in the order given
			most := 0
			for _, n := range []int{1, 1, 1, 3, 1, 4, 1, 1, 2, 1, 1, 1, 12, 1, 2, 1} {
				add(n)
				var given []string // nil: the pattern's files
				if parts > 1 {
					given = slices.Clone(names)
					rand.Shuffle(len(given), func(i, j int) { given[i], given[j] = given[j], given[i] })
				}
				r, err := Update(ctx, path, given, &UpdateOptions{SplitBytes: 600})
				if err != nil {
					t.Fatalf("%d files: %v", len(names), err)
				}
				if len(r.Added) != n {
					t.Fatalf("%d files: added %q, want %d", len(names), r.Added, n)
				}
				order = append(order, r.Added...)
				checkAgainstOne(t, path, order)
				m := checkLayers(t, path)
				most = max(most, len(m.Layers))
			}
			if most < 2 {
				t.Errorf("at most %d layers: want updates that keep several", most)
			}
			before, _ := ReadManifest(path)
			r, err := Update(ctx, path, names, nil)
			if err != nil || len(r.Added) != 0 {
				t.Fatalf("an update with nothing new: added %q, %v", r.Added, err)
			}
			if m, _ := ReadManifest(path); m.Run != before.Run {
				t.Errorf("an update with nothing new wrote run %s", m.Run)
			}
		})
	}
}

// TestUpdateFail: an update that cannot be made (a listed file changed, a
// new file of another header, a build that named each file and an update
// that names none) says why and leaves the index as it was, with no file
// of its run; a plan whose manifest another update replaced does not
// commit.
func TestUpdateFail(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	names, _ := genParts(t, dir, 6, 9)
	path := filepath.Join(out, "all.idx")
	ctx := context.Background()
	if _, _, err := Build(ctx, names[:4], path, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatal(err)
	}
	unchanged := func() {
		t.Helper()
		checkLayers(t, path)
		checkAgainstOne(t, path, names[:4])
	}
	if _, err := Update(ctx, path, nil, nil); err == nil || !strings.Contains(err.Error(), "name the files to add") {
		t.Errorf("no names, no sources: %v", err)
	}
	unchanged()
	other := filepath.Join(dir, "other.csv")
	os.WriteFile(other, []byte("id,name\n1,u1\n"), 0o644)
	if _, err := Update(ctx, path, []string{other}, nil); err == nil || !strings.Contains(err.Error(), "header differs") || !strings.Contains(err.Error(), other) {
		t.Errorf("another header: %v", err)
	}
	unchanged()
	data, _ := os.ReadFile(names[1])
	os.WriteFile(names[1], append(data, "99,u1,late\n"...), 0o644)
	if _, err := Update(ctx, path, names, nil); !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), names[1]) {
		t.Errorf("a listed file changed: %v, want ErrStale naming it", err)
	}
	os.WriteFile(names[1], data, 0o644)
	unchanged()

	_, stale, _, err := PlanUpdate(ctx, path, names[:5], &PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Update(ctx, path, names, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := ReadPlan(stale)
	if err := runTasks(ctx, p, stale, index.Resources{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Commit(ctx, stale); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("a plan of an update whose manifest was replaced since: %v", err)
	}
	p.removeRun(stale)
	checkLayers(t, path)
	checkAgainstOne(t, path, names)
}

// TestConcurrentCommits: two updates planned on one manifest, committed at
// once (both waiting on its lock, then let go together): one publishes,
// the other finds its base replaced and publishes nothing; every file the
// manifest lists is there, and the index answers as the files it lists.
func TestConcurrentCommits(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	names, _ := genParts(t, dir, 30, 3)
	path := filepath.Join(out, "all.idx")
	ctx := context.Background()
	if _, _, err := Build(ctx, names[:20], path, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{21, 22} {
		if _, err := Update(ctx, path, names[:n], nil); err != nil {
			t.Fatal(err)
		}
	}
	pa, planA, _, err := PlanUpdate(ctx, path, names[:29], &PlanOptions{}) // indexes the last layer again
	if err != nil {
		t.Fatal(err)
	}
	pb, planB, _, err := PlanUpdate(ctx, path, names[:24], &PlanOptions{}) // adds a layer
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		p    *Plan
		path string
	}{{pa, planA}, {pb, planB}} {
		if err := runTasks(ctx, r.p, r.path, index.Resources{}); err != nil {
			t.Fatal(err)
		}
	}
	lock, err := index.LockFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for _, plan := range []string{planA, planB} {
		go func() { _, _, err := Commit(ctx, plan); errs <- err }()
	}
	select {
	case err := <-errs:
		t.Fatalf("a commit ended while another writer held the manifest's lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	lock.Unlock()
	e1, e2 := <-errs, <-errs
	if (e1 == nil) == (e2 == nil) {
		t.Fatalf("two commits on one base: %v and %v; want one to publish and the other to be refused", e1, e2)
	}
	if err := cmp.Or(e1, e2); !strings.Contains(err.Error(), "replaced") {
		t.Errorf("the commit refused: %v", err)
	}
	m, _ := ReadManifest(path)
	want, refused, refusedPath := names[:29], pb, planB
	if m.Run == pb.Run {
		want, refused, refusedPath = names[:24], pa, planA
	}
	refused.removeRun(refusedPath) // an aborted run's files stay until removed
	checkLayers(t, path)
	checkAgainstOne(t, path, want)
}

// TestOwnFilesLeftOut: a pattern that matches the manifest's directory
// names the index's own files too (manifest, parts table, index files,
// fences, lock): a build, a plan and an update leave them out, with a
// header or without.
func TestOwnFilesLeftOut(t *testing.T) {
	ctx := context.Background()
	for _, noHeader := range []bool{false, true} {
		dir := t.TempDir()
		names, _ := genParts(t, dir, 6, 11)
		path := filepath.Join(dir, "m.idx")
		pattern := filepath.Join(dir, "*")
		all := func() []string {
			got, err := Expand([]string{pattern})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		key := "user"
		if noHeader {
			key = "1"
		}
		bo := &index.BuildOptions{Key: key, NoHeader: noHeader}
		if _, _, err := Build(ctx, all(), path, bo, NewSources([]string{pattern}, "")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Build(ctx, all(), path, bo, NewSources([]string{pattern}, "")); err != nil {
			t.Fatalf("no header %v: a build again, the pattern naming the index's files: %v", noHeader, err)
		}
		m, _ := ReadManifest(path)
		if m.PartCount != len(names) {
			t.Errorf("no header %v: %d parts, want %d", noHeader, m.PartCount, len(names))
		}
		r, err := Update(ctx, path, nil, nil)
		if err != nil || len(r.Added) != 0 {
			t.Errorf("no header %v: an update with no new file added %q, %v", noHeader, r.Added, err)
		}
		if p, _, _, err := PlanUpdate(ctx, path, all(), &PlanOptions{}); p != nil || err != nil {
			t.Errorf("no header %v: a plan of an update with no new file: %v, %v", noHeader, p, err)
		}
	}
}

// TestUpdateManifestFails: an update whose manifest cannot be written (its
// rename fails: a full disk, say) leaves no file of its run, its parts
// table included, and the index as it was.
func TestUpdateManifestFails(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	names, _ := genParts(t, dir, 8, 3)
	path := filepath.Join(out, "all.idx")
	ctx := context.Background()
	if _, _, err := Build(ctx, names[:6], path, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(out)
	atomicfile.SetFaults(func(op, p string) error {
		if op == "rename" && p == path {
			return errors.New("injected: no space left")
		}
		return nil
	})
	defer atomicfile.SetFaults(nil)
	if _, err := Update(ctx, path, names, nil); err == nil {
		t.Fatal("no error")
	}
	atomicfile.SetFaults(nil)
	after, _ := os.ReadDir(out)
	if len(after) != len(before) {
		var extra []string
		for _, e := range after {
			extra = append(extra, e.Name())
		}
		t.Errorf("after a failed update the directory holds %s (before: %d files)", strings.Join(extra, " "), len(before))
	}
	checkLayers(t, path)
	checkAgainstOne(t, path, names[:6])
}
