package multifile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/index"
)

// runSteps plans, maps (each task once, in a random order, and one task
// twice), reduces and commits an index of names by key with parts
// partitions and map tasks of about split bytes, its manifest at path.
func runSteps(t *testing.T, r *rand.Rand, names []string, path, key string, parts int, split int64) *Manifest {
	t.Helper()
	ctx := context.Background()
	p, planPath, err := MakePlan(ctx, names, path, &PlanOptions{BuildOptions: index.BuildOptions{Key: key}, Partitions: parts, SplitBytes: split})
	if err != nil {
		t.Fatal(err)
	}
	if split < 1<<20 && len(p.Tasks) < 3 {
		t.Fatalf("a plan of %d tasks of %d bytes: want several", len(p.Tasks), split)
	}
	order := r.Perm(len(p.Tasks))
	order = append(order, order[0]) // a task run twice does no harm
	for _, i := range order {
		if _, err := Map(ctx, planPath, i); err != nil {
			t.Fatalf("map %d: %v", i, err)
		}
	}
	for j := range parts {
		if _, err := Reduce(ctx, planPath, j, index.Resources{}); err != nil {
			t.Fatalf("reduce %d: %v", j, err)
		}
	}
	m, _, err := Commit(ctx, planPath)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rowsOf returns the rows of keys through the index x, as one string.
func rowsOf(t *testing.T, get func([][]byte, func([]byte) error) error, keys [][]byte) string {
	t.Helper()
	var b strings.Builder
	if err := get(keys, func(row []byte) error { b.Write(row); return nil }); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSteps: an index built by plan, map, reduce and commit, in several
// partitions, from many files cut into many map tasks (within files and
// across them), answers every key as the index of one file holding their
// concatenation does; with one partition, its index file is that index,
// byte for byte after the header page; the run's map outputs and plan are
// gone after the commit, and only its files and the manifest are left.
func TestSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	dir := t.TempDir()
	names, concat := genParts(t, dir, 25, 3)
	want, one := indexOfOne(t, concat)
	var keys [][]byte
	for u := range 45 {
		keys = append(keys, []byte(fmt.Sprintf("u%d", u)))
	}
	for _, c := range []struct {
		parts int
		split int64
	}{{3, 700}, {1, 2000}, {7, 1 << 20}} {
		out := t.TempDir()
		path := filepath.Join(out, "all.idx")
		m := runSteps(t, r, names, path, "user", c.parts, c.split)
		if len(m.Partitions) != c.parts || m.Size != int64(len(concat)) {
			t.Fatalf("%d partitions: the manifest lists %d, %d bytes", c.parts, len(m.Partitions), m.Size)
		}
		x, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if a, b := rowsOf(t, want.Get, [][]byte{k}), rowsOf(t, x.Get, [][]byte{k}); a != b {
				t.Fatalf("%d partitions, split %d: key %s: %q, want %q", c.parts, c.split, k, b, a)
			}
		}
		if a, b := rowsOf(t, want.Get, keys), rowsOf(t, x.Get, keys); a != b {
			t.Fatalf("%d partitions: all keys at once differ", c.parts)
		}
		x.Close()
		left, _ := os.ReadDir(out)
		if len(left) != 2+2*c.parts { // the manifest, its parts table, each partition and its fence
			var got []string
			for _, e := range left {
				got = append(got, e.Name())
			}
			t.Errorf("%d partitions: left %q", c.parts, got)
		}
		if c.parts == 1 {
			got, _ := os.ReadFile(filepath.Join(out, m.Partitions[0]))
			whole, _ := os.ReadFile(one + ".csvidx")
			if len(got) <= format.PageSize || !bytes.Equal(got[format.PageSize:], whole[format.PageSize:]) {
				t.Errorf("one partition: its index file (%d bytes) is not the index of the concatenation (%d bytes)", len(got), len(whole))
			}
		}
	}
}

// TestStepsFail: a commit publishes nothing, and the manifest before it
// stays, when a map task has not run, a partition is missing, or a file
// changed between the plan and the commit; an aborted run's files do not
// stop another run's commit, which leaves them alone.
func TestStepsFail(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	ctx := context.Background()
	dir := t.TempDir()
	names, _ := genParts(t, dir, 8, 4)
	path := filepath.Join(dir, "m.idx")
	first := runSteps(t, r, names, path, "user", 2, 1000)

	_, aborted, err := MakePlan(ctx, names, path, &PlanOptions{BuildOptions: index.BuildOptions{Key: "id"}, Partitions: 2, SplitBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Map(ctx, aborted, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Commit(ctx, aborted); !errors.Is(err, errNotDone) {
		t.Errorf("a commit before every map task ran: %v", err)
	}
	p, planPath, err := MakePlan(ctx, names, path, &PlanOptions{BuildOptions: index.BuildOptions{Key: "user"}, Partitions: 2, SplitBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Tasks {
		if _, err := Map(ctx, planPath, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Reduce(ctx, planPath, 0, index.Resources{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Commit(ctx, planPath); !errors.Is(err, errNotDone) || !strings.Contains(err.Error(), "reduce task 1 has not run") {
		t.Errorf("a commit with a partition missing: %v", err)
	}
	if _, err := Reduce(ctx, planPath, 1, index.Resources{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(names[2])
	os.WriteFile(names[2], append(data, "999,u1,late\n"...), 0o644)
	if _, _, err := Commit(ctx, planPath); !errors.Is(err, index.ErrStale) {
		t.Errorf("a commit after a file grew: %v", err)
	}
	if m, err := ReadManifest(path); err != nil || m.Run != first.Run {
		t.Fatalf("the manifest after failed commits: %+v, %v; want the first run's", m, err)
	}
	os.WriteFile(names[2], data, 0o644)
	second, _, err := Commit(ctx, planPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, first.Partitions[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the first run's index file outlived the commit that replaced it")
	}
	if _, err := os.Stat(aborted); err != nil {
		t.Errorf("the aborted run's plan was removed: %v", err)
	}
	x, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Manifest().Run != second.Run || rowsOf(t, x.Get, [][]byte{[]byte("u1")}) == "" {
		t.Errorf("the second run's manifest does not answer")
	}
}

// TestVerify: an index over many files, of one partition (Build) or of
// several (the steps), equals a fresh build; a damaged page of a partition
// and a changed file are differences that say where.
func TestVerify(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	ctx := context.Background()
	dir := t.TempDir()
	names, _ := genParts(t, dir, 10, 9)
	one := filepath.Join(dir, "one.idx")
	if _, _, err := Build(ctx, names, one, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatal(err)
	}
	many := filepath.Join(dir, "many.idx")
	m := runSteps(t, r, names, many, "user", 3, 900)
	for _, path := range []string{one, many} {
		if res, err := Verify(ctx, path, index.Resources{}); err != nil || !res.Equal {
			t.Fatalf("Verify(%s) = %+v, %v; want equal", path, res, err)
		}
	}
	part := filepath.Join(dir, m.Partitions[1])
	b, err := os.ReadFile(part)
	if err != nil || len(b) <= format.PageSize+10 {
		t.Fatalf("%s: %d bytes, %v", part, len(b), err)
	}
	b[format.PageSize+10] ^= 1
	os.WriteFile(part, b, 0o644)
	if res, err := Verify(ctx, many, index.Resources{}); err != nil || res.Equal || len(res.Differences) != 1 || !strings.Contains(res.Differences[0], "partition 1") {
		t.Errorf("Verify of a damaged partition: %+v, %v", res, err)
	}
	data, _ := os.ReadFile(names[5])
	data[len(data)/2] ^= 1
	os.WriteFile(names[5], data, 0o644)
	if res, err := Verify(ctx, one, index.Resources{}); err != nil || res.Equal || !strings.Contains(strings.Join(res.Differences, "\n"), names[5]) {
		t.Errorf("Verify after a file changed: %+v, %v", res, err)
	}
}

// TestAutoPartitions: a plan not told how many partitions makes one per
// PartitionBytes of its files, at least one, at most maxPartitions.
func TestAutoPartitions(t *testing.T) {
	for _, c := range []struct {
		size int64
		want int
	}{{0, 1}, {1, 1}, {PartitionBytes, 1}, {PartitionBytes + 1, 2}, {5582975455, 6}, {1 << 50, maxPartitions}} {
		if got := autoPartitions(c.size); got != c.want {
			t.Errorf("autoPartitions(%d) = %d, want %d", c.size, got, c.want)
		}
	}
	dir := t.TempDir()
	names, _ := genParts(t, dir, 3, 4)
	p, _, err := MakePlan(context.Background(), names, filepath.Join(dir, "m.idx"), &PlanOptions{BuildOptions: index.BuildOptions{Key: "user"}})
	if err != nil || p.Partitions != 1 {
		t.Errorf("a plan of small files, no partitions given: %d partitions, %v", p.Partitions, err)
	}
}
