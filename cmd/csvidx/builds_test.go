//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/internal/tooltest"
)

// buildBoth builds csvidx without and with -tags codecs into dir, as the
// README's install section does, and returns their paths.
func buildBoth(t *testing.T, dir string) (plain, codecs string) {
	t.Helper()
	goTool := tooltest.Need(t, "go")
	plain, codecs = filepath.Join(dir, "csvidx"), filepath.Join(dir, codecsName)
	for _, b := range []struct{ out, tags string }{{plain, ""}, {codecs, "codecs"}} {
		cmd := exec.Command(goTool, "build", "-tags", b.tags, "-o", b.out, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", b.tags, err, out)
		}
	}
	return plain, codecs
}

// result is what a run of a csvidx binary did.
type result struct {
	status         int
	stdout, stderr string
}

// runBinary runs the csvidx binary bin in dir with args, PATH set to path
// (and reexecEnv cleared), and stdin, giving up after a minute (a loop of
// re-execs would never end).
func runBinary(t *testing.T, bin, dir, path, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path, reexecEnv+"=")
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: still running after a minute: a loop?", bin, strings.Join(args, " "))
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", bin, err)
	}
	return result{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

// writeExec writes an executable file of data at path.
func writeExec(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
		t.Fatal(err)
	}
}

// copyExec copies the executable at from to to.
func copyExec(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCodecsBuild runs the two builds of csvidx, made by go build with and
// without -tags codecs: the default build links no decoder and runs
// csvidx-codecs, next to it (through a symbolic link too) or on PATH, for
// a BGZF or zstd file, so that its answer is the codecs build's, byte for
// byte; without csvidx-codecs it says in one line how to get it, exit 2; a
// codecs build that fails is not run again, nor a default build installed
// as csvidx-codecs; xz keeps the advice to decompress it,
// without running csvidx-codecs.
//
// The codecs build builds the index of a BGZF or zstd file, answers get,
// info and join from it, verifies, updates and compacts it: those answers
// are compared.
func TestCodecsBuild(t *testing.T) {
	plainBin, codecsBin := buildBoth(t, t.TempDir())
	for _, tool := range []string{"bgzip", "zstd", "gzip", "xz"} {
		tooltest.Need(t, tool)
	}
	for bin, linked := range map[string]bool{plainBin: false, codecsBin: true} {
		out, err := exec.Command("go", "version", "-m", bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(out), "github.com/klauspost/compress"); got != linked {
			t.Errorf("%s links klauspost/compress: %v, want %v", filepath.Base(bin), got, linked)
		}
	}

	root := t.TempDir()
	mkdir := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data, both, alone, loop, spy, linkDir, onPath, empty := mkdir("data"), mkdir("both"), mkdir("alone"), mkdir("loop"), mkdir("spy"), mkdir("link", "bin"), mkdir("onpath"), mkdir("empty")
	copyExec(t, plainBin, filepath.Join(both, "csvidx"))
	copyExec(t, codecsBin, filepath.Join(both, codecsName))
	copyExec(t, plainBin, filepath.Join(alone, "csvidx"))
	copyExec(t, codecsBin, filepath.Join(onPath, codecsName))
	copyExec(t, plainBin, filepath.Join(loop, "csvidx"))
	copyExec(t, plainBin, filepath.Join(loop, codecsName)) // a default build installed as csvidx-codecs
	copyExec(t, plainBin, filepath.Join(spy, "csvidx"))
	writeExec(t, filepath.Join(spy, codecsName), "#!/bin/sh\ntouch \"$0.ran\"\nexit 7\n")
	if err := os.Symlink(filepath.Join(both, "csvidx"), filepath.Join(linkDir, "csvidx")); err != nil {
		t.Fatal(err)
	}

	var csv strings.Builder
	csv.WriteString("id,user\n")
	for i := range 20000 {
		fmt.Fprintf(&csv, "%d,u%d\n", i, i*7919%4999)
	}
	writeFile(t, filepath.Join(data, "orders.csv"), csv.String())
	sh := func(script string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = data
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	sh(`bgzip -c orders.csv > orders.csv.gz && zstd -q -c orders.csv > orders.csv.zst && gzip -c orders.csv > plain.csv.gz && xz -c orders.csv > plain.csv.xz`)
	sh(`cp orders.csv.gz bgzf-named.csv && head -c 30000 orders.csv.gz > cut.csv.gz && cp orders.csv right.csv`)
	writeFile(t, filepath.Join(data, "keys.txt"), "u1\nu2\n")
	if r := runBinary(t, plainBin, data, empty, "", "build", "right.csv", "--key", "user", "-q"); r.status != 0 {
		t.Fatalf("build right.csv: %+v", r)
	}

	// (a) The default build's answer for a file the codecs build reads is
	// the codecs build's, found next to it, through a link, or on PATH.
	for _, args := range [][]string{
		{"build", "orders.csv.gz", "--key", "user"},
		{"build", "bgzf-named.csv", "--key", "user"},
		{"build", "orders.csv.zst", "--key", "user"},
		{"build", "plain.csv.gz", "--key", "user"},
		{"get", "plain.csv.gz", "u1", "u2"},
		{"get", "orders.csv.zst", "u1"},
		{"get", "orders.csv.gz", "--keys-file", "-"},
		{"info", "orders.csv.gz"},
		{"verify", "orders.csv.zst"},
		{"update", "orders.csv.gz"},
		{"compact", "orders.csv.zst"},
		{"join", "orders.csv", "orders.csv.zst", "--key", "user"},
		{"join", "-", "orders.csv.gz", "--key", "user"},
	} {
		name := strings.Join(args, " ")
		stdin := "u1\nu2\n"
		if args[1] == "-" {
			stdin = "id,user\n1,u1\n"
		}
		want := timeless(runBinary(t, filepath.Join(both, codecsName), data, empty, stdin, args...))
		if want.status != 0 {
			t.Errorf("%s: the codecs build's answer %+v: want it to read the file", name, want)
		}
		for _, via := range []struct{ name, bin, path string }{
			{"next to it", filepath.Join(both, "csvidx"), empty},
			{"through a link", filepath.Join(linkDir, "csvidx"), empty},
			{"on PATH", filepath.Join(alone, "csvidx"), onPath},
		} {
			if got := timeless(runBinary(t, via.bin, data, via.path, stdin, args...)); got != want {
				t.Errorf("%s, csvidx-codecs %s: %+v, want the codecs build's %+v", name, via.name, got, want)
			}
		}
	}

	// (b) Without csvidx-codecs: one line, exit 2, how to get it.
	for _, c := range []struct{ file, what, decompress string }{
		{"orders.csv.gz", "gzip-compressed (BGZF)", "gzip -dc orders.csv.gz > orders.csv"},
		{"orders.csv.zst", "zstd-compressed", "zstd -dc orders.csv.zst > orders.csv"},
	} {
		want := "csvidx: " + c.file + " is " + c.what + ", which csvidx reads through its codecs build, csvidx-codecs, found neither next to csvidx nor on PATH: build it from a clone of csvidx (" + codecsInstall + "), or decompress the file first (" + c.decompress + ")\n"
		if got := runBinary(t, filepath.Join(alone, "csvidx"), data, empty, "", "get", c.file, "u1"); got != (result{2, "", want}) {
			t.Errorf("%s without csvidx-codecs: %+v, want exit 2 and %q", c.file, got, want)
		}
	}

	// (c) No loop: a codecs build that fails is not run again; a default
	// build installed as csvidx-codecs runs nothing more.
	cut := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "cut.csv.gz", "--key", "user")
	if cut.status != 2 || strings.Count(cut.stderr, "\n") != 1 || !strings.Contains(cut.stderr, "cut.csv.gz is damaged") {
		t.Errorf("a truncated BGZF file: %+v, want exit 2 and the codecs build's one line", cut)
	}
	looped := runBinary(t, filepath.Join(loop, "csvidx"), data, empty, "", "get", "orders.csv.zst", "u1")
	if wantEnd := "is not one: build it with -tags codecs (" + codecsInstall + ")\n"; looped.status != 2 || strings.Count(looped.stderr, "\n") != 1 ||
		!strings.HasPrefix(looped.stderr, "csvidx: orders.csv.zst is zstd-compressed, and "+filepath.Join(loop, codecsName)+", which "+filepath.Join(loop, "csvidx")+" ran") ||
		!strings.HasSuffix(looped.stderr, wantEnd) {
		t.Errorf("a default build as csvidx-codecs: %+v", looped)
	}

	// (d) xz: the advice to decompress, from the default build itself, and
	// the same from the codecs build.
	for _, c := range []struct{ file, format string }{{"plain.csv.xz", "xz"}} {
		want := result{2, "", "csvidx: " + c.file + " is " + c.format + "-compressed, and csvidx reads plain CSV: decompress it first (" + c.format + " -dc " + c.file + " > plain.csv)\n"}
		if got := runBinary(t, filepath.Join(spy, "csvidx"), data, empty, "", "get", c.file, "u1"); got != want {
			t.Errorf("%s: %+v, want %+v", c.file, got, want)
		}
		if got := runBinary(t, filepath.Join(both, codecsName), data, empty, "", "get", c.file, "u1"); got != want {
			t.Errorf("%s, the codecs build: %+v, want %+v", c.file, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(spy, codecsName+".ran")); err == nil {
		t.Errorf("csvidx-codecs ran for xz")
	}
	// ... but it runs for zstd (the spy's own exit status).
	if got := runBinary(t, filepath.Join(spy, "csvidx"), data, empty, "", "get", "orders.csv.zst", "u1"); got.status != 7 {
		t.Errorf("the spy for zstd: %+v, want its exit status 7", got)
	}

	// Plain files: both builds answer alike, and csvidx-codecs is not run.
	for _, bin := range []string{filepath.Join(spy, "csvidx"), filepath.Join(both, codecsName)} {
		if got := runBinary(t, bin, data, empty, "", "get", "right.csv", "u1"); got.status != 0 || strings.Count(got.stdout, "\n") != 4 {
			t.Errorf("%s get right.csv u1: %+v", bin, got)
		}
	}
	if got := runBinary(t, filepath.Join(both, codecsName), data, empty, "", "--version"); !strings.Contains(got.stdout, "codecs build") {
		t.Errorf("csvidx-codecs --version: %+v", got)
	}
}

// buildTime is how long a build took, in its report on stderr.
var buildTime = regexp.MustCompile(` in [0-9.]+ s:`)

// timeless returns r with the times in its stderr replaced, so that two
// runs of a build compare.
func timeless(r result) result {
	r.stderr = buildTime.ReplaceAllString(r.stderr, " in T s:")
	return r
}
