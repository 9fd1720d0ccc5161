package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/multifile"
)

// TestRecipeParallel runs the GNU parallel recipe of docs/distributed.md,
// scripts/recipes/parallel.sh, as it is written, with the csvidx built
// here on PATH: over twelve files, the index it commits answers every key
// as a one-machine build of the same files does, and the recipe run again
// replaces it with the same answers; the same steps run by xargs -P write
// the same index files, page for page.
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
	// The same plan's tasks run by xargs -P 2 write the same index files,
	// page for page after their header pages (which hold their run).
	plan := strings.Fields(run(bin, "plan", "orders/*.csv", "--key", "user", "--index", "xargs.idx", "--partitions", "3"))
	run("sh", "-c", fmt.Sprintf("seq 0 %s | xargs -P 2 -I{} %s map --plan %s --task {} && seq 0 2 | xargs -P 2 -I{} %s reduce --plan %s --partition {}",
		decrement(t, plan[1]), bin, plan[0], bin, plan[0]))
	run(bin, "commit", "--plan", plan[0], "-q")
	a, errA := multifile.ReadManifest(filepath.Join(dir, "many.idx"))
	b, errB := multifile.ReadManifest(filepath.Join(dir, "xargs.idx"))
	if errA != nil || errB != nil || len(a.Partitions) != 3 || len(b.Partitions) != 3 {
		t.Fatalf("the manifests: %v, %v", errA, errB)
	}
	for j := range 3 {
		x, _ := os.ReadFile(filepath.Join(dir, a.Partitions[j]))
		y, _ := os.ReadFile(filepath.Join(dir, b.Partitions[j]))
		if len(x) <= format.PageSize || !bytes.Equal(x[format.PageSize:], y[format.PageSize:]) {
			t.Errorf("partition %d: GNU parallel's index file (%d bytes) is not xargs's (%d bytes)", j, len(x), len(y))
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "many.idx.*"))
	if len(left) != 7 { // the parts table, three index files and their fences: the first run's are gone
		t.Errorf("after two runs: %q", left)
	}
}

// decrement returns the number n (in decimal) less one, for seq's last.
func decrement(t *testing.T, n string) string {
	t.Helper()
	k, err := strconv.Atoi(n)
	if err != nil || k < 1 {
		t.Fatalf("plan printed %q map tasks", n)
	}
	return strconv.Itoa(k - 1)
}

// exitStderr returns the standard error an exec error holds, if any.
func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
