package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

var errInjected = errors.New("injected fault")

// filesIn returns the index files in dir (all but the CSV), by name.
func filesIn(t *testing.T, dir, csvName string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Name() == csvName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// restore makes dir hold exactly the CSV and the given index files.
func restore(t *testing.T, dir, csvName string, files map[string][]byte) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, keep := files[e.Name()]; !keep && e.Name() != csvName {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// crashScenario is one writer whose file operations the crash tests fail in
// turn, and how to make the state it starts from.
type crashScenario struct {
	name   string
	before func(f *rowsFile)    // makes the old state
	op     func(p string) error // the writer that fails
}

var crashScenarios = []crashScenario{
	{"build", func(f *rowsFile) {}, func(p string) error {
		_, err := Build(context.Background(), p, &BuildOptions{Key: "user"})
		return err
	}},
	{"update", func(f *rowsFile) {}, func(p string) error {
		_, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true})
		return err
	}},
	{"update-compact", func(f *rowsFile) {}, func(p string) error {
		res, err := Update(context.Background(), p, nil)
		if err == nil && res.CompactError != nil {
			return res.CompactError // the tail is in place; the merge failed
		}
		return err
	}},
	{"compact", func(f *rowsFile) {
		if _, err := Update(context.Background(), f.path, &UpdateOptions{NoCompact: true}); err != nil {
			panic(err)
		}
	}, func(p string) error {
		_, err := Compact(context.Background(), p, nil)
		return err
	}},
}

// crashEnv names the environment variable that makes TestCrashChild run a
// scenario in a child process and exit at one operation: "NAME K PATH".
const crashEnv = "CSVIDX_CRASH_CHILD"

// crashExit is the child's exit status at the chosen operation.
const crashExit = 7

// TestCrashPoints fails each file operation of build, update, compact and
// an update that compacts by itself, in turn (the fault hook of
// atomicfile: create, write, sync, rename, syncdir, remove), with an error.
// After each failure the index must answer exactly as the old state or the
// new one does (never cover less, never mix), and the next writer must
// leave it equal to a fresh build with no temporary file.
func TestCrashPoints(t *testing.T) {
	points := crashLoop(t, failAt)
	t.Logf("%d crash points tried (error returned), 0 broken", points)
}

// TestCrashExits is TestCrashPoints with the process exiting at operation
// k instead, in a re-executed child: no deferred cleanup runs, temporary
// files stay behind, and the lock dies with the process.
func TestCrashExits(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary for every crash point")
	}
	points := crashLoop(t, exitAt)
	t.Logf("%d crash points tried (process exit), 0 broken", points)
}

// failAt runs sc's writer on the CSV at p with its file operation k
// failing with errInjected, and requires the writer to return that error.
func failAt(t *testing.T, sc crashScenario, p string, k int) {
	n := 0
	atomicfile.SetFaults(func(op, path string) error {
		if n++; n == k {
			return fmt.Errorf("%w at %s of %s", errInjected, op, filepath.Base(path))
		}
		return nil
	})
	err := sc.op(p)
	atomicfile.SetFaults(nil)
	if !errors.Is(err, errInjected) {
		t.Fatalf("fault %d: the writer returned %v, not the injected error", k, err)
	}
}

// exitAt runs sc's writer on the CSV at p in a child process (see
// TestCrashChild) that exits at its file operation k.
func exitAt(t *testing.T, sc crashScenario, p string, k int) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %s", crashEnv, sc.name, k, p))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != crashExit {
		t.Fatalf("crash %d: the child ended with %v, not exit %d:\n%s", k, err, crashExit, out)
	}
}

// TestCrashChild is the child of TestCrashExits; it does nothing unless
// crashEnv is set.
func TestCrashChild(t *testing.T) {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		t.Skip("only run as a child of TestCrashExits")
	}
	var name, p string
	var k int
	if _, err := fmt.Sscanf(spec, "%s %d %s", &name, &k, &p); err != nil {
		t.Fatalf("%s=%q: %v", crashEnv, spec, err)
	}
	for _, sc := range append(crashScenarios, severalScenarios...) {
		if sc.name != name {
			continue
		}
		n := 0
		atomicfile.SetFaults(func(op, path string) error {
			if n++; n == k {
				os.Exit(crashExit)
			}
			return nil
		})
		err := sc.op(p)
		t.Fatalf("the writer finished (%v) before operation %d", err, k)
	}
	t.Fatalf("no crash scenario %q", name)
}

// crashLoop runs every scenario once to count its file operations, then
// once per operation k with crash(k) failing it, from the same old state.
// It checks the promise after each and returns the crash points tried.
func crashLoop(t *testing.T, crash func(t *testing.T, sc crashScenario, p string, k int)) int {
	points := 0
	for _, sc := range crashScenarios {
		t.Run(sc.name, func(t *testing.T) {
			f := &rowsFile{path: writeCSV(t, "id,user\n"), size: int64(len("id,user\n"))}
			dir, csvName := filepath.Dir(f.path), filepath.Base(f.path)
			f.add(t, 2000)
			build(t, f.path, &BuildOptions{Key: "user"})
			f.add(t, 400) // a fifth: update compacts by itself unless told not to
			sc.before(f)
			old := filesIn(t, dir, csvName)
			oldCovered := covered(t, f.path)

			var ops int
			atomicfile.SetFaults(func(op, path string) error { ops++; return nil })
			if err := sc.op(f.path); err != nil {
				t.Fatal(err)
			}
			atomicfile.SetFaults(nil)
			newCovered := covered(t, f.path)
			if ops == 0 {
				t.Fatal("the writer made no file operation")
			}
			for k := 1; k <= ops; k++ {
				restore(t, dir, csvName, old)
				crash(t, sc, f.path, k)
				c := covered(t, f.path)
				if c != oldCovered && c != newCovered {
					t.Fatalf("crash %d of %d: the index covers %d bytes, neither the old %d nor the new %d", k, ops, c, oldCovered, newCovered)
				}
				checkCounts(t, f, c)
				if _, err := Update(context.Background(), f.path, &UpdateOptions{NoCompact: true}); err != nil {
					t.Fatalf("crash %d: the next update: %v", k, err)
				}
				if res, err := Verify(context.Background(), f.path, nil); err != nil || !res.Equal {
					t.Fatalf("crash %d: verify after the next update: %+v, %v", k, res, err)
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

// covered returns how many CSV bytes the index of the CSV at p covers.
func covered(t *testing.T, p string) int64 {
	t.Helper()
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer ix.Close()
	return int64(ix.furthest().Scanned)
}

// checkCounts checks some keys' counts and rows against the model.
func checkCounts(t *testing.T, f *rowsFile, covered int64) {
	t.Helper()
	ix, err := Open(f.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for k := 0; k < 97; k += 7 {
		key := []byte(fmt.Sprintf("u%d", k))
		n, err := ix.Count(key)
		var rows int64
		if err == nil {
			err = ix.Lookup(key, func([]byte) error { rows++; return nil })
		}
		if want := f.count(k, covered); err != nil || n != want || rows != want {
			t.Fatalf("u%d over %d bytes: Count %d, %d rows, %v; want %d", k, covered, n, rows, err, want)
		}
	}
}
