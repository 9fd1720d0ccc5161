package index

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

// threeKeys are the keys of the file the several-index crash tests
// update: rowsFile's user column, its id column, and both.
var threeKeys = []string{"user", "id", "user,id"}

// severalScenarios are the writers of several indexes the crash tests fail
// in turn, from a file of threeKeys' indexes with rows appended.
var severalScenarios = []crashScenario{
	{"update-all", nil, func(p string) error {
		_, err := UpdateAll(context.Background(), p, &UpdateOptions{NoCompact: true})
		return err
	}},
	{"update-all-compact", nil, func(p string) error {
		rs, err := UpdateAll(context.Background(), p, nil)
		for _, r := range rs {
			if r.CompactError != nil {
				return r.CompactError // the tails are in place; a merge failed
			}
		}
		return err
	}},
}

// TestCrashPointsSeveral fails each file operation of an update of three
// indexes in one scan, in turn, with an error. After each failure every
// index answers exactly for the old state or the new one, each whole (it
// equals a fresh build of what it covers); the next update brings all of
// them up to date.
func TestCrashPointsSeveral(t *testing.T) {
	points := severalCrashLoop(t, failAt)
	t.Logf("%d crash points tried (error returned), 0 broken", points)
}

// TestCrashExitsSeveral is TestCrashPointsSeveral with the process exiting
// at each operation, in a re-executed child (see TestCrashExits).
func TestCrashExitsSeveral(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary for every crash point")
	}
	points := severalCrashLoop(t, exitAt)
	t.Logf("%d crash points tried (process exit), 0 broken", points)
}

// severalCrashLoop is crashLoop for severalScenarios: it checks each of the
// three indexes after every crash.
func severalCrashLoop(t *testing.T, crash func(t *testing.T, sc crashScenario, p string, k int)) int {
	points := 0
	for _, sc := range severalScenarios {
		t.Run(sc.name, func(t *testing.T) {
			f := &rowsFile{path: writeCSV(t, "id,user\n"), size: int64(len("id,user\n"))}
			dir, csvName := filepath.Dir(f.path), filepath.Base(f.path)
			f.add(t, 2000)
			if _, err := BuildIndexes(context.Background(), f.path, threeKeys, nil); err != nil {
				t.Fatal(err)
			}
			f.add(t, 400) // a fifth: update compacts by itself unless told not to
			old := filesIn(t, dir, csvName)
			oldCovered := coveredEach(t, f.path)

			var ops int
			atomicfile.SetFaults(func(op, path string) error { ops++; return nil })
			if err := sc.op(f.path); err != nil {
				t.Fatal(err)
			}
			atomicfile.SetFaults(nil)
			newCovered := coveredEach(t, f.path)
			for k := 1; k <= ops; k++ {
				restore(t, dir, csvName, old)
				crash(t, sc, f.path, k)
				for j, c := range coveredEach(t, f.path) {
					if c != oldCovered[j] && c != newCovered[j] {
						t.Fatalf("crash %d of %d: the index by %q covers %d bytes, neither the old %d nor the new %d", k, ops, threeKeys[j], c, oldCovered[j], newCovered[j])
					}
					checkEach(t, f, threeKeys[j], c)
				}
				vs, err := VerifyAll(context.Background(), f.path, nil)
				if err != nil {
					t.Fatalf("crash %d: %v", k, err)
				}
				for _, v := range vs {
					if !v.Equal {
						t.Fatalf("crash %d: %s is not whole: %v", k, v.Path, v.Differences)
					}
				}
				if _, err := UpdateAll(context.Background(), f.path, &UpdateOptions{NoCompact: true}); err != nil {
					t.Fatalf("crash %d: the next update: %v", k, err)
				}
				for j, c := range coveredEach(t, f.path) {
					if c != f.size {
						t.Fatalf("crash %d: after the next update, the index by %q covers %d bytes of %d", k, threeKeys[j], c, f.size)
					}
				}
				for name := range filesIn(t, dir, csvName) {
					if strings.Contains(name, ".tmp-") {
						t.Fatalf("crash %d: %s survived the next writer", k, name)
					}
				}
				points++
			}
		})
	}
	return points
}

// coveredEach returns how many CSV bytes each index of threeKeys covers.
func coveredEach(t *testing.T, p string) []int64 {
	t.Helper()
	out := make([]int64, len(threeKeys))
	for j, key := range threeKeys {
		ix, err := Open(p, &Options{By: key})
		if err != nil {
			t.Fatalf("Open by %q: %v", key, err)
		}
		out[j] = int64(ix.furthest().Scanned)
		ix.Close()
	}
	return out
}

// checkEach checks some rows against the model through the index by key,
// which covers the CSV's first covered bytes: checkCounts for the user
// column, one row or none for an id or an (id, user) pair.
func checkEach(t *testing.T, f *rowsFile, key string, covered int64) {
	t.Helper()
	ix, err := Open(f.path, &Options{By: key})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for i := 0; i < len(f.keys); i += 97 {
		id, user := strconv.Itoa(i), fmt.Sprintf("u%d", f.keys[i])
		var k []byte
		switch key {
		case "user":
			n, err := ix.Count([]byte(user))
			if want := f.count(f.keys[i], covered); err != nil || n != want {
				t.Fatalf("by user: %s over %d bytes: %d, %v; want %d", user, covered, n, err, want)
			}
			continue
		case "id":
			k = []byte(id)
		default:
			if k, err = ix.CompositeKey([]byte(user), []byte(id)); err != nil {
				t.Fatal(err)
			}
		}
		want := int64(0)
		if f.ends[i] <= covered {
			want = 1
		}
		if n, err := ix.Count(k); err != nil || n != want {
			t.Fatalf("by %q: row %d over %d bytes: %d, %v; want %d", key, i, covered, n, err, want)
		}
	}
}
