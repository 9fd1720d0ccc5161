package index

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/scan/chunked"
)

// sweeps counts the scans a Progress callback saw: a scan reports a
// growing count of bytes, and a new scan starts lower, or has another
// total.
type sweeps struct{ last, total, n int64 }

func (s *sweeps) progress(done, total int64) {
	if s.n == 0 || done < s.last || total != s.total {
		s.n++
	}
	s.last, s.total = done, total
}

// severalFiles builds the indexes of severalKeys in a copy of the same
// CSV in each of n directories, and returns the CSVs' paths.
func severalFiles(t *testing.T, data string, n int) []string {
	var paths []string
	for range n {
		p := filepath.Join(t.TempDir(), "x.csv")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := BuildIndexes(context.Background(), p, severalKeys, &BuildOptions{NoHeader: true}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestUpdateAllEqualsUpdates: UpdateAll writes, in one scan of the
// appended rows, each index's tail byte for byte as Update of that index
// alone does, leaves each main index as it was, compacts each into what a
// build writes, and VerifyAll finds each equal to a fresh build, in one
// scan of the main indexes and one of the tails.
func TestUpdateAllEqualsUpdates(t *testing.T) {
	tune(t, chunked.Tuning{ChunkBytes: 999}) // progress after every chunk
	r := rand.New(rand.NewPCG(38, 38))
	g := makeCompositeCSV(r, 2000, ',', false)
	csvs := severalFiles(t, g.data, 2)
	all, one := csvs[0], csvs[1]
	idxs, err := Indexes(all)
	if err != nil || len(idxs) != 3 {
		t.Fatalf("indexes %v, %v", idxs, err)
	}
	mains := map[string][]byte{}
	for _, path := range idxs {
		mains[filepath.Base(path)], _ = os.ReadFile(path)
	}
	more := makeCompositeCSV(r, 100, ',', false)
	for _, p := range csvs {
		appendCSV(t, p, more.data)
	}

	var sw sweeps
	rs, err := UpdateAll(context.Background(), all, &UpdateOptions{NoCompact: true, Progress: sw.progress})
	if err != nil {
		t.Fatal(err)
	}
	if sw.n != 1 {
		t.Fatalf("UpdateAll of 3 indexes scanned %d times, want once", sw.n)
	}
	var apart sweeps
	for _, path := range indexesOf(t, one) {
		if _, err := Update(context.Background(), one, &UpdateOptions{IndexPath: path, NoCompact: true, Progress: apart.progress}); err != nil {
			t.Fatal(err)
		}
	}
	if apart.n != 3 { // what the count above would see of separate scans
		t.Fatalf("3 updates scanned %d times", apart.n)
	}
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3", len(rs))
	}
	for i, res := range rs {
		name := filepath.Base(idxs[i])
		if res.Path != idxs[i] || res.Action != "tail" || res.Info == nil || res.Info.Tail == nil || res.Info.Stale != "" {
			t.Fatalf("index %s: %+v", name, res)
		}
		if now, _ := os.ReadFile(idxs[i]); !bytes.Equal(now, mains[name]) {
			t.Fatalf("UpdateAll changed the main index %s", name)
		}
		got, err1 := os.ReadFile(tailPath(idxs[i]))
		want, err2 := os.ReadFile(tailPath(filepath.Join(filepath.Dir(one), name)))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("the tail of %s differs from Update's (%v, %v)", name, err1, err2)
		}
	}

	sw = sweeps{}
	vs, err := VerifyAll(context.Background(), all, &VerifyOptions{Progress: sw.progress})
	if err != nil {
		t.Fatal(err)
	}
	if sw.n != 2 { // the main indexes, then the tails
		t.Fatalf("VerifyAll of 3 indexes with tails scanned %d times, want 2", sw.n)
	}
	for i, v := range vs {
		if !v.Equal || v.Path != idxs[i] || v.BytesBehind != 0 {
			t.Fatalf("VerifyAll, %s: %+v", idxs[i], v)
		}
	}

	rs, err = UpdateAll(context.Background(), all, nil) // nothing new; compacts nothing
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rs {
		if res.Action != "none" {
			t.Fatalf("a second UpdateAll: %+v", res)
		}
	}
	for _, key := range severalKeys {
		if _, err := Compact(context.Background(), all, &CompactOptions{By: key}); err != nil {
			t.Fatal(err)
		}
		fresh, _ := buildBytes(t, all, key, true, Resources{})
		if got, _ := os.ReadFile(keyPath(t, all, key)); !bytes.Equal(got, fresh) {
			t.Fatalf("index by %q: compact after UpdateAll differs from a build", key)
		}
	}
}

// TestUpdateAllCompacts: a tail that reaches a tenth of its main index is
// merged into it, for every index at once, into what a build writes.
func TestUpdateAllCompacts(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 39))
	g := makeCompositeCSV(r, 300, ',', false)
	p := severalFiles(t, g.data, 1)[0]
	appendCSV(t, p, makeCompositeCSV(r, 100, ',', false).data)
	rs, err := UpdateAll(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rs {
		if res.Action != "compact" || res.Info.Tail != nil {
			t.Fatalf("index %s: %+v, want it compacted", res.Path, res)
		}
	}
	for _, key := range severalKeys {
		fresh, _ := buildBytes(t, p, key, true, Resources{})
		if got, _ := os.ReadFile(keyPath(t, p, key)); !bytes.Equal(got, fresh) {
			t.Fatalf("index by %q: UpdateAll's compact differs from a build", key)
		}
	}
}

// TestUpdateAllRefusesStale: when one index of a file is stale, UpdateAll
// fails before it writes anything, and names that index.
func TestUpdateAllRefusesStale(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 40))
	g := makeCompositeCSV(r, 300, ',', false)
	p := severalFiles(t, g.data, 1)[0]
	stale := nextTo(p).byPath([]int{0})
	// Build one index over other first bytes: once they are back, it is
	// stale, and the others are not.
	orig, _ := os.ReadFile(p)
	other := strings.Replace(string(orig), "x", "y", 1)
	if err := os.WriteFile(p, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), p, &BuildOptions{Key: "0", NoHeader: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	appendCSV(t, p, "1,2,3\n")
	before := map[string][]byte{}
	dir := filepath.Dir(p)
	names, _ := os.ReadDir(dir)
	for _, e := range names {
		before[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
	}
	_, err := UpdateAll(context.Background(), p, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Base(stale)) {
		t.Fatalf("UpdateAll with a stale index: %v, want an error naming %s", err, stale)
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(names) {
		t.Fatalf("UpdateAll that failed left %d files, not %d", len(after), len(names))
	}
	for _, e := range after {
		if now, _ := os.ReadFile(filepath.Join(dir, e.Name())); !bytes.Equal(now, before[e.Name()]) {
			t.Fatalf("UpdateAll that failed changed %s", e.Name())
		}
	}
}

// TestVerifyAllFindsEachDifference: a corrupt tail of one index and an
// edited main index of another are reported for those indexes only, as
// Verify of each reports them.
func TestVerifyAllFindsEachDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	g := makeCompositeCSV(r, 2000, ',', false)
	p := severalFiles(t, g.data, 1)[0]
	appendCSV(t, p, makeCompositeCSV(r, 50, ',', false).data)
	if _, err := UpdateAll(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	idxs := indexesOf(t, p)
	editAt(t, tailPath(idxs[1]), format.PageSize+20, 0x5a)
	editAt(t, idxs[2], format.PageSize+30, 0x5a)
	vs, err := VerifyAll(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		one, err := Verify(context.Background(), p, &VerifyOptions{IndexPath: idxs[i]})
		if err != nil {
			t.Fatal(err)
		}
		if v.Equal != (i == 0) || v.Equal != one.Equal || !slices.Equal(v.Differences, one.Differences) || !slices.Equal(v.Notes, one.Notes) {
			t.Fatalf("index %s: VerifyAll %+v, Verify %+v", idxs[i], v, one)
		}
	}
	one, err := VerifyAll(context.Background(), p, &VerifyOptions{By: "0"}) // the index by column 0 alone
	if err != nil || len(one) != 1 || one[0].Path != idxs[1] || one[0].Equal != vs[1].Equal {
		t.Fatalf("VerifyAll by 0: %+v, %v", one, err)
	}
}

// keyPath returns Locate(p, key).
func keyPath(t *testing.T, p, key string) string {
	t.Helper()
	path, err := Locate(p, key)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// indexesOf returns Indexes(p).
func indexesOf(t *testing.T, p string) []string {
	t.Helper()
	paths, err := Indexes(p)
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestUpdateAllTwoDialects: indexes of one CSV built with other
// delimiters get their tails from scans of their own dialect, each the
// tail Update of it alone writes.
func TestUpdateAllTwoDialects(t *testing.T) {
	data := "a,b;c\n1,2;3\n4,5;6\n"
	more := "7,8;9\n1,x;3\n"
	var ps []string
	for range 2 {
		p := writeCSV(t, data)
		build(t, p, &BuildOptions{Key: "0"})                 // by "1" with ','
		build(t, p, &BuildOptions{Key: "1", Delimiter: ';'}) // by c, with ";"
		appendCSV(t, p, more)
		ps = append(ps, p)
	}
	if _, err := UpdateAll(context.Background(), ps[0], &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	for _, path := range indexesOf(t, ps[1]) {
		if _, err := Update(context.Background(), ps[1], &UpdateOptions{IndexPath: path, NoCompact: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range indexesOf(t, ps[0]) {
		got, err1 := os.ReadFile(tailPath(path))
		want, err2 := os.ReadFile(tailPath(filepath.Join(filepath.Dir(ps[1]), filepath.Base(path))))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("the tail of %s differs from Update's (%v, %v)", filepath.Base(path), err1, err2)
		}
	}
	ix, err := Open(ps[0], &Options{By: "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := get(t, ix, "3"); got != "1,2;3\n1,x;3\n" {
		t.Fatalf("by c, in the ;-dialect, key 3: %q", got)
	}
}
