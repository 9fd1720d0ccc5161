package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/tooltest"
)

// TestRecipeParallel runs the GNU parallel recipe of docs/distributed.md,
// scripts/recipes/parallel.sh, as it is written, with the csvidx built
// here on PATH: over twelve files, the index it commits answers every key
// as a one-machine build of the same files does, and the recipe run again
// replaces it with the same answers.
func TestRecipeParallel(t *testing.T) {
	tooltest.Need(t, "parallel")
	bin := buildTagged(t, t.TempDir(), "")[0]
	recipe, err := filepath.Abs("../../scripts/recipes/parallel.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "orders"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f := range 12 {
		var b strings.Builder
		b.WriteString("id,user,note\n")
		for r := range 200 + f*50 {
			note := "x"
			if r%9 == 0 {
				note = "\"two\nlines, quoted\""
			}
			fmt.Fprintf(&b, "%d,u%d,%s\n", f*10000+r, (f*31+r)%97, note)
		}
		writeFile(t, filepath.Join(dir, "orders", fmt.Sprintf("%02d.csv", f)), b.String())
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "PARTITIONS=3", "JOBS=2")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && name == bin {
			return "" // get: no row
		}
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, exitStderr(err))
		}
		return string(out)
	}
	run(bin, "build", "orders/*.csv", "--key", "user", "--index", "one.idx", "-q")
	for round := range 2 {
		run("sh", recipe, "many.idx", "user", "orders/*.csv")
		for u := range 100 {
			key := fmt.Sprintf("u%d", u)
			want := run(bin, "get", "one.idx", key, "--with-file")
			if got := run(bin, "get", "many.idx", key, "--with-file"); got != want {
				t.Fatalf("round %d, key %s: %q, want %q", round, key, got, want)
			}
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "many.idx.*"))
	if len(left) != 7 { // the parts table, three index files and their fences: the first run's are gone
		t.Errorf("after two runs: %q", left)
	}
}

// exitStderr returns the standard error an exec error holds, if any.
func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
