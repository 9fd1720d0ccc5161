//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source/remote/remotetest"
)

// buildBoth builds csvidx without and with -tags codecs into dir, as the
// README's install section does, and returns their paths.
func buildBoth(t *testing.T, dir string) (plain, codecs string) {
	t.Helper()
	bins := buildTagged(t, dir, "", "codecs")
	return bins[0], bins[1]
}

// buildTagged builds csvidx with each of tags into dir, as the README's
// install section does, and returns their paths: csvidx for no tag,
// csvidx-codecs for codecs, csvidx-remote for remote.
func buildTagged(t *testing.T, dir string, tags ...string) []string {
	t.Helper()
	goTool := tooltest.Need(t, "go")
	names := map[string]string{"": "csvidx", "codecs": codecsName, "remote": remoteName}
	var bins []string
	for _, tag := range tags {
		out := filepath.Join(dir, names[tag])
		cmd := exec.Command(goTool, "build", "-tags", tag, "-o", out, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", tag, err, msg)
		}
		bins = append(bins, out)
	}
	return bins
}

// result is what a run of a csvidx binary did.
type result struct {
	status         int
	stdout, stderr string
}

// runBinary runs the csvidx binary bin in dir with args, PATH set to path
// (and reexecEnv and remoteEnv cleared), and stdin, giving up after a minute (a loop of
// re-execs would never end).
func runBinary(t *testing.T, bin, dir, path, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path, reexecEnv+"=", remoteEnv+"=")
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

// TestRemoteBuild runs the remote build, made by go build -tags remote,
// with the two others: the default and codecs builds run csvidx-remote,
// next to them (through a symbolic link too) or on PATH, for a CSV named
// by a URL, here served by remotetest, so that a get through a local
// index (--index) prints the rows of a get of the local copy, with its
// exit status (1: no row); a build through it writes the local copy's
// index, byte for byte after the header page, which verify finds equal.
// Without csvidx-remote they say in one line how to get it, exit 2;
// another build installed as csvidx-remote is refused in one line; a
// local file whose name looks like a URL is read by the default build.
func TestRemoteBuild(t *testing.T) {
	bins := buildTagged(t, t.TempDir(), "", "codecs", "remote")
	plainBin, codecsBin, remoteBin := bins[0], bins[1], bins[2]

	root := t.TempDir()
	mkdir := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data, both, withCodecs, alone, codecsAlone, onPath, linkDir, loop, codecsLoop, empty := mkdir("data"), mkdir("both"), mkdir("codecs"), mkdir("alone"), mkdir("codecsalone"), mkdir("onpath"), mkdir("link", "bin"), mkdir("loop"), mkdir("codecsloop"), mkdir("empty")
	copyExec(t, plainBin, filepath.Join(both, "csvidx"))
	copyExec(t, remoteBin, filepath.Join(both, remoteName))
	copyExec(t, codecsBin, filepath.Join(withCodecs, codecsName))
	copyExec(t, remoteBin, filepath.Join(withCodecs, remoteName))
	copyExec(t, plainBin, filepath.Join(alone, "csvidx"))
	copyExec(t, codecsBin, filepath.Join(codecsAlone, codecsName))
	copyExec(t, remoteBin, filepath.Join(onPath, remoteName))
	copyExec(t, plainBin, filepath.Join(loop, "csvidx"))
	copyExec(t, plainBin, filepath.Join(loop, remoteName)) // a default build installed as csvidx-remote
	copyExec(t, codecsBin, filepath.Join(codecsLoop, codecsName))
	copyExec(t, codecsBin, filepath.Join(codecsLoop, remoteName)) // a codecs build installed as csvidx-remote
	if err := os.Symlink(filepath.Join(both, "csvidx"), filepath.Join(linkDir, "csvidx")); err != nil {
		t.Fatal(err)
	}

	var csv strings.Builder
	csv.WriteString("id,user\n")
	for i := range 20000 {
		fmt.Fprintf(&csv, "%d,u%d\n", i, i*7919%4999)
	}
	writeFile(t, filepath.Join(data, "a.csv"), csv.String())
	s := remotetest.NewServer(t)
	s.Put("a.csv", []byte(csv.String()))
	url := s.URLOf("a.csv")
	if r := runBinary(t, plainBin, data, empty, "", "build", "a.csv", "--key", "user", "--index", "local.csvidx", "-q"); r.status != 0 {
		t.Fatalf("build a.csv: %+v", r)
	}

	// (a) The default and codecs builds' answer for a URL is the remote
	// build's, found next to them, through a link, or on PATH, and the same
	// as the local copy's.
	for _, c := range []struct {
		keys   []string
		stdin  string
		status int
	}{
		{[]string{"u1", "u2"}, "", 0},
		{[]string{"--keys-file", "-"}, "u3\nu4\n", 0},
		{[]string{"no-such-key"}, "", 1},
	} {
		want := runBinary(t, plainBin, data, empty, c.stdin, append([]string{"get", "a.csv", "--index", "local.csvidx"}, c.keys...)...)
		if want.status != c.status || c.status == 0 && strings.Count(want.stdout, "\n") < 4 {
			t.Fatalf("get a.csv %q: %+v", c.keys, want)
		}
		args := append([]string{"get", url, "--index", "local.csvidx"}, c.keys...)
		for _, via := range []struct{ name, bin, path string }{
			{"the remote build itself", filepath.Join(both, remoteName), empty},
			{"next to it", filepath.Join(both, "csvidx"), empty},
			{"through a link", filepath.Join(linkDir, "csvidx"), empty},
			{"on PATH", filepath.Join(alone, "csvidx"), onPath},
			{"from the codecs build", filepath.Join(withCodecs, codecsName), empty},
		} {
			if got := runBinary(t, via.bin, data, via.path, c.stdin, args...); got != want {
				t.Errorf("get URL %q, %s: %+v, want the local copy's %+v", c.keys, via.name, got, want)
			}
		}
	}

	// (b) A build of the URL through csvidx-remote writes the local copy's
	// index, which verify, through it too, finds equal.
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", url, "--key", "user", "--index", "remote.csvidx", "-q"); r.status != 0 {
		t.Fatalf("build URL: %+v", r)
	}
	local, err := os.ReadFile(filepath.Join(data, "local.csvidx"))
	if err != nil {
		t.Fatal(err)
	}
	remote, err := os.ReadFile(filepath.Join(data, "remote.csvidx"))
	if err != nil {
		t.Fatal(err)
	}
	const headerPage = 4096 // the header, which holds the CSV's identity and the build's time
	if len(local) <= headerPage || !bytes.Equal(local[headerPage:], remote[headerPage:]) {
		t.Errorf("the index built of the URL (%d bytes) differs from the local copy's (%d bytes) after the header page", len(remote), len(local))
	}
	if r := runBinary(t, filepath.Join(alone, "csvidx"), data, onPath, "", "verify", url, "--index", "remote.csvidx"); r.status != 0 {
		t.Errorf("verify URL: %+v", r)
	}

	// (f) The index next to the CSV on the server (URL.csvidx and its
	// fence), or at --index's URL, is fetched in part into the cache
	// (XDG_CACHE_HOME), through csvidx-remote: the local copy's rows and
	// counts, with the cache or without (--no-cache).
	if r := runBinary(t, plainBin, data, empty, "", "build", "a.csv", "--key", "user", "-q"); r.status != 0 {
		t.Fatalf("build a.csv: %+v", r)
	}
	for _, name := range []string{"a.csv.csvidx", "a.csv.csvidx.fence"} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		s.Put(name, b)
		s.Put("elsewhere/"+name, b)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tmp := t.TempDir() // the processes' TMPDIR, which --no-cache's cache is made in and removed from
	t.Setenv("TMPDIR", tmp)
	for _, args := range [][]string{{"u1", "u2", "nope"}, {"--count", "u1", "u3"}, {"u5", "--no-cache"}, {"nope", "--no-cache"}, {"u6", "--index", s.URLOf("elsewhere/a.csv.csvidx")}} {
		localArgs := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--no-cache" })
		if i := slices.Index(localArgs, "--index"); i >= 0 {
			localArgs = slices.Delete(localArgs, i, i+2)
		}
		want := runBinary(t, plainBin, data, empty, "", append([]string{"get", "a.csv"}, localArgs...)...)
		if localArgs[0] != "nope" && (want.status != 0 || want.stdout == "") {
			t.Fatalf("get a.csv %q: %+v", localArgs, want)
		}
		if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", append([]string{"get", url}, args...)...); got != want {
			t.Errorf("get URL %q through its remote index: %+v, want the local copy's %+v", args, got, want)
		}
		if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
			t.Errorf("get URL %q left %d files in TMPDIR (%v)", args, len(left), err)
		}
	}

	// (g) build of an s3:// CSV puts its index next to it (a conditional
	// PUT), which get then reads; build of an http URL whose server takes
	// no PUT says so, exit 2.
	fake := remotetest.NewS3(t, "bucket")
	for k, v := range map[string]string{"AWS_ENDPOINT_URL": fake.URL, "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": filepath.Join(empty, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(empty, "none")} {
		t.Setenv(k, v)
	}
	if _, err := fake.Backend.PutObject("bucket", "dir/a.csv", nil, strings.NewReader(csv.String()), int64(csv.Len()), nil); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "s3://bucket/dir/a.csv", "--key", "user"); r.status != 0 || !strings.Contains(r.stderr, "the index is s3://bucket/dir/a.csv.csvidx") {
		t.Fatalf("build s3://: %+v", r)
	}
	// A second build by another key goes to the by- name of its column,
	// the first index kept.
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "s3://bucket/dir/a.csv", "--key", "id"); r.status != 0 || !strings.Contains(r.stderr, "the index is s3://bucket/dir/a.csv.by-0.csvidx") {
		t.Fatalf("a second build of s3:// by another key: %+v", r)
	}
	if r := runBinary(t, plainBin, data, empty, "", "build", "a.csv", "--key", "id", "--index", "local-id.csvidx", "-q"); r.status != 0 {
		t.Fatalf("build a.csv --key id: %+v", r)
	}
	wantID := runBinary(t, plainBin, data, empty, "", "get", "a.csv", "--index", "local-id.csvidx", "17")
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/dir/a.csv", "17", "--index", "s3://bucket/dir/a.csv.by-0.csvidx"); got != wantID || got.status != 0 {
		t.Errorf("get s3:// through its by- index: %+v, want %+v", got, wantID)
	}
	for _, by := range []string{"id", "0"} { // by name or by number: the by- index
		if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/dir/a.csv", "17", "--by", by); got != wantID {
			t.Errorf("get s3:// --by %s: %+v, want %+v", by, got, wantID)
		}
	}
	wantUser := runBinary(t, plainBin, data, empty, "", "get", "a.csv", "u7")
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/dir/a.csv", "u7", "--by", "user"); got != wantUser {
		t.Errorf("get s3:// --by user (its default index): %+v, want %+v", got, wantUser)
	}
	// A build again by the first key replaces the default index.
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "s3://bucket/dir/a.csv", "--key", "user"); r.status != 0 || !strings.Contains(r.stderr, "the index is s3://bucket/dir/a.csv.csvidx") {
		t.Fatalf("a build of s3:// again by its first key: %+v", r)
	}
	wantS3 := runBinary(t, plainBin, data, empty, "", "get", "a.csv", "u7", "u8")
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/dir/a.csv", "u7", "u8"); got != wantS3 {
		t.Errorf("get s3:// after its build: %+v, want %+v", got, wantS3)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", url, "--key", "user"); r.status != 2 || !strings.Contains(r.stderr, "HTTP 405") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("build of an http URL whose server takes no PUT: %+v", r)
	}

	// (h) info of a remote CSV describes its remote index by its URL.
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "info", url, "--json"); r.status != 0 || !strings.Contains(r.stdout, `"index":"`+url+`.csvidx"`) || !strings.Contains(r.stdout, `"state":"fresh"`) {
		t.Errorf("info URL: %+v", r)
	}

	// (i) compress of a CSV at a URL writes its bytes compressed, locally.
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "compress", url, "-o", "fromurl.csv.zst", "-q"); r.status != 0 {
		t.Fatalf("compress URL: %+v", r)
	}
	if out, err := exec.Command(tooltest.Need(t, "zstd"), "-dc", filepath.Join(data, "fromurl.csv.zst")).Output(); err != nil || string(out) != csv.String() {
		t.Errorf("compress URL: zstd -dc gives %d bytes (%v), not the CSV's %d", len(out), err, csv.Len())
	}

	// (j) join with a RIGHT at a URL, through its remote index: the local
	// RIGHT's join, in every mode, a batch of LEFT's keys fetching its
	// pages and rows at once.
	var left strings.Builder
	left.WriteString("user,n\n")
	for i := range 3000 {
		fmt.Fprintf(&left, "u%d,%d\n", i*37%5200, i)
	}
	writeFile(t, filepath.Join(data, "left.csv"), left.String())
	for _, mode := range []string{"--inner", "--left", "--right", "--full", "--semi", "--anti"} {
		want := runBinary(t, plainBin, data, empty, "", "join", "left.csv", "a.csv", "--key", "user", mode)
		if want.status > 1 || want.stdout == "" {
			t.Fatalf("join %s: %+v", mode, want)
		}
		before := s.Requests.Load()
		if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "join", "left.csv", url, "--key", "user", mode); got != want {
			t.Errorf("join %s with a RIGHT at a URL: %d bytes, status %d, %q; want %d bytes", mode, len(got.stdout), got.status, got.stderr, len(want.stdout))
		}
		if n := s.Requests.Load() - before; n > 200 {
			t.Errorf("join %s with a RIGHT at a URL: %d requests for 3000 LEFT rows", mode, n)
		}
	}
	// (The note a join gives when it read RIGHT over many times is
	// TestJoinNote's, in the remote build: here the rows of each batch
	// stay cached for the next, and RIGHT is read about once.)

	// (k) verify of a CSV at a URL through its remote index: fetched whole,
	// equal to a build.
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "verify", url); r.status != 0 || !strings.HasPrefix(r.stdout, "ok: the index of "+url+" equals a fresh build") {
		t.Errorf("verify URL: %+v", r)
	}

	// (l) A compressed CSV at a URL (BGZF), built through csvidx-remote
	// into a local index and put next to it by an s3 build, answers as
	// the plain file.
	gz := filepath.Join(data, "a.csv.gz")
	if out, err := exec.Command(tooltest.Need(t, "bgzip"), "-c", filepath.Join(data, "a.csv")).Output(); err != nil {
		t.Fatal(err)
	} else {
		writeFile(t, gz, string(out))
		s.Put("a.csv.gz", out)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", s.URLOf("a.csv.gz"), "--key", "user", "--index", "gz.csvidx", "-q"); r.status != 0 {
		t.Fatalf("build of a BGZF URL: %+v", r)
	}
	wantGz := runBinary(t, plainBin, data, empty, "", "get", "a.csv", "u9", "u10")
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", s.URLOf("a.csv.gz"), "u9", "u10", "--index", "gz.csvidx"); got != wantGz {
		t.Errorf("get of a BGZF URL through a local index: %+v, want %+v", got, wantGz)
	}
	gzBytes, _ := os.ReadFile(gz)
	if _, err := fake.Backend.PutObject("bucket", "dir/a.csv.gz", nil, bytes.NewReader(gzBytes), int64(len(gzBytes)), nil); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "s3://bucket/dir/a.csv.gz", "--key", "user", "-q"); r.status != 0 {
		t.Fatalf("build of a BGZF s3 URL: %+v", r)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/dir/a.csv.gz", "u9", "u10"); got != wantGz {
		t.Errorf("get of a BGZF s3 URL through its remote index: %+v, want %+v", got, wantGz)
	}

	// (m) A build of a CSV at a URL by several keys at once, in one scan:
	// the first key's index at the default name, the other's at its by-
	// name; a get by either answers as the local copy. With one --index
	// URL, several keys are refused.
	if _, err := fake.Backend.PutObject("bucket", "dir/b.csv", nil, strings.NewReader(csv.String()), int64(csv.Len()), nil); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "s3://bucket/dir/b.csv", "--key", "user", "--key", "id"); r.status != 0 ||
		!strings.Contains(r.stderr, "the index is s3://bucket/dir/b.csv.csvidx ") || !strings.Contains(r.stderr, "the index is s3://bucket/dir/b.csv.by-0.csvidx ") {
		t.Fatalf("build of s3:// by two keys: %+v", r)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/dir/b.csv", "u7"); got != wantUser {
		t.Errorf("get s3:// built by two keys, by its default: %+v, want %+v", got, wantUser)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/dir/b.csv", "17", "--by", "id"); got != wantID {
		t.Errorf("get s3:// built by two keys, --by id: %+v, want %+v", got, wantID)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "s3://bucket/dir/b.csv", "--key", "user", "--key", "id", "--index", "s3://bucket/x.csvidx"); r.status != 2 || !strings.Contains(r.stderr, "--index is for one index") {
		t.Errorf("build of s3:// by two keys into one --index URL: %+v", r)
	}

	// (n) With --index-dir, a CSV at a URL has its indexes in that local
	// directory, as a local CSV has: built, read, updated when rows are
	// appended to the object, dropped; nothing is put on the server (which
	// takes no PUT). Update, compact and drop of an index at a URL say
	// what to do instead, exit 2.
	s.Put("grow.csv", []byte(csv.String()))
	grow, dir := s.URLOf("grow.csv"), filepath.Join(data, "indexes")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", grow, "--key", "user", "--index-dir", dir, "-q"); r.status != 0 {
		t.Fatalf("build URL --index-dir: %+v", r)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", grow, "u7", "--index-dir", dir); got != wantUser {
		t.Errorf("get URL --index-dir: %+v, want %+v", got, wantUser)
	}
	s.Put("grow.csv", []byte(csv.String()+"20000,u424242\n20001,u7\n"))
	writeFile(t, filepath.Join(data, "grown.csv"), csv.String()+"20000,u424242\n20001,u7\n")
	if r := runBinary(t, plainBin, data, empty, "", "build", "grown.csv", "--key", "user", "-q"); r.status != 0 {
		t.Fatalf("build grown.csv: %+v", r)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "update", grow, "--index-dir", dir); r.status != 0 || !strings.Contains(r.stderr, "2 rows") {
		t.Fatalf("update URL --index-dir after rows appended: %+v", r)
	}
	wantGrown := runBinary(t, plainBin, data, empty, "", "get", "grown.csv", "u7", "u424242")
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", grow, "u7", "u424242", "--index-dir", dir); got != wantGrown || got.status != 0 {
		t.Errorf("get URL --index-dir after its update: %+v, want %+v", got, wantGrown)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "drop", grow, "--index-dir", dir); r.status != 0 {
		t.Errorf("drop URL --index-dir: %+v", r)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.csvidx")); len(left) != 0 {
		t.Errorf("drop URL --index-dir left %v", left)
	}
	t.Setenv("CSVIDX_CACHE_MIB", "lots")
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", url, "u7"); r.status != 2 || !strings.HasPrefix(r.stderr, `csvidx: CSVIDX_CACHE_MIB="lots": `) {
		t.Errorf("get URL with CSVIDX_CACHE_MIB=lots: %+v", r)
	}
	t.Setenv("CSVIDX_CACHE_MIB", "64")
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", url, "u7"); got != wantUser {
		t.Errorf("get URL with CSVIDX_CACHE_MIB=64: %+v, want %+v", got, wantUser)
	}
	for _, command := range []string{"update", "compact", "drop"} {
		if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", command, url); r.status != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "is at a URL") {
			t.Errorf("%s of a CSV whose index is at a URL: %+v", command, r)
		}
	}

	// mapReduce runs the map and reduce tasks of a plan, each a process of
	// the default build.
	mapReduce := func(plan string, tasks, parts int) {
		t.Helper()
		for i := range tasks {
			if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "map", "--plan", plan, "--task", fmt.Sprint(i)); r.status != 0 {
				t.Fatalf("map %d: %+v", i, r)
			}
		}
		for j := range parts {
			if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "reduce", "--plan", plan, "--partition", fmt.Sprint(j)); r.status != 0 {
				t.Fatalf("reduce %d: %+v", j, r)
			}
		}
	}

	// (o) An index over a local file and one at a URL (issue 42): built and
	// read through csvidx-remote, which the default build runs for the
	// URL, each row after its file.
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "a.csv", url, "--key", "user", "--index", "mixed.idx", "-q"); r.status != 0 {
		t.Fatalf("build of a file and a URL: %+v", r)
	}
	var mixed strings.Builder
	for _, file := range []string{"a.csv", url} {
		for line := range strings.Lines(wantUser.stdout) {
			mixed.WriteString(file + "," + line)
		}
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "mixed.idx", "u7", "--with-file"); got.stdout != mixed.String() || got.status != 0 {
		t.Errorf("get of an index over a file and a URL: %+v, want %q", got, mixed.String())
	}
	// The same through the four steps, each run by the default build, which
	// runs csvidx-remote for a plan of files at URLs.
	r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "plan", "a.csv", url, "--key", "user", "--index", "steps.idx", "--partitions", "2")
	var plan string
	var tasks, parts int
	if _, err := fmt.Sscanf(r.stdout, "%s %d %d", &plan, &tasks, &parts); err != nil || r.status != 0 {
		t.Fatalf("plan of a file and a URL: %+v", r)
	}
	mapReduce(plan, tasks, parts)
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "commit", "--plan", plan, "-q"); r.status != 0 {
		t.Fatalf("commit: %+v", r)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "steps.idx", "u7", "--with-file"); got.stdout != mixed.String() || got.status != 0 {
		t.Errorf("get through the steps' index over a file and a URL: %+v, want %q", got, mixed.String())
	}

	// (c) Without csvidx-remote: one line, exit 2, how to get it.
	want := result{2, "", "csvidx: " + url + " is a URL, which csvidx reads through its remote build, csvidx-remote, found neither next to csvidx nor on PATH: build it from a clone of csvidx (" + remoteInstall + "), or download the file first\n"}
	for _, bin := range []string{filepath.Join(alone, "csvidx"), filepath.Join(codecsAlone, codecsName)} {
		if got := runBinary(t, bin, data, empty, "", "get", url, "u1", "--index", "local.csvidx"); got != want {
			t.Errorf("%s without csvidx-remote: %+v, want %+v", bin, got, want)
		}
	}

	// (d) No loop: a default or codecs build installed as csvidx-remote
	// runs nothing more.
	for _, c := range []struct{ dir, bin string }{{loop, "csvidx"}, {codecsLoop, codecsName}} {
		got := runBinary(t, filepath.Join(c.dir, c.bin), data, empty, "", "get", url, "u1", "--index", "local.csvidx")
		want := "csvidx: " + url + " is a URL, and " + filepath.Join(c.dir, remoteName) + ", which " + filepath.Join(c.dir, c.bin) +
			" ran to read it as csvidx's remote build, is not one: build it with -tags remote (" + remoteInstall + ")\n"
		if got != (result{2, "", want}) {
			t.Errorf("%s as csvidx-remote: %+v, want exit 2 and %q", filepath.Base(c.bin), got, want)
		}
	}

	// (e) A local file whose name looks like the URL is the default build's
	// to read, without csvidx-remote.
	named := filepath.Join(data, filepath.FromSlash(strings.Replace(url, "://", ":/", 1)))
	if err := os.MkdirAll(filepath.Dir(named), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, named, csv.String())
	if r := runBinary(t, filepath.Join(alone, "csvidx"), data, empty, "", "build", url, "--key", "user", "-q"); r.status != 0 {
		t.Fatalf("build of a local file named like the URL: %+v", r)
	}
	wantRows := runBinary(t, plainBin, data, empty, "", "get", "a.csv", "u1", "--index", "local.csvidx")
	if got := runBinary(t, filepath.Join(alone, "csvidx"), data, empty, "", "get", url, "u1"); got != wantRows {
		t.Errorf("get of a local file named like the URL: %+v, want %+v", got, wantRows)
	}

	// (p) An index over many files published as objects (the manifest, its
	// parts table, its index files, and the files at paths relative to
	// the manifest, as a copy of its directory puts them): get of the
	// manifest's URL reads it, its table and its index files by ranges,
	// and prints what the local index prints, each row after its file's
	// URL, in a few requests; a file that changed is the stale-index
	// error, an index file missing an error that names it.
	pub := mkdir("data", "pub", "orders")
	var b strings.Builder
	b.WriteString("id,user\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "%d,u%d\n", 50000+i, i%211)
	}
	writeFile(t, filepath.Join(pub, "a.csv"), csv.String())
	writeFile(t, filepath.Join(pub, "b.csv"), b.String())
	if r := runBinary(t, plainBin, data, empty, "", "build", "pub/orders/*.csv", "--key", "user", "--index", "pub/orders.idx", "-q"); r.status != 0 {
		t.Fatalf("build of pub/orders/*.csv: %+v", r)
	}
	entries, _ := os.ReadDir(filepath.Join(data, "pub"))
	var objects []string
	for _, e := range entries {
		if !e.IsDir() {
			objects = append(objects, e.Name())
		}
	}
	objects = append(objects, "orders/a.csv", "orders/b.csv")
	for _, name := range objects {
		body, err := os.ReadFile(filepath.Join(data, "pub", name))
		if err != nil {
			t.Fatal(err)
		}
		s.Put("pub/"+name, body)
	}
	manyRows := runBinary(t, plainBin, data, empty, "", "get", "pub/orders.idx", "u7", "u13", "--with-file")
	if manyRows.status != 0 || strings.Count(manyRows.stdout, "orders/b.csv") < 10 || strings.Count(manyRows.stdout, "orders/a.csv") < 3 {
		t.Fatalf("get of the local manifest: %+v", manyRows)
	}
	want = manyRows
	want.stdout = strings.ReplaceAll(manyRows.stdout, "pub/orders/", s.URLOf("pub/orders/"))
	before := s.Requests.Load()
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", s.URLOf("pub/orders.idx"), "u7", "u13", "--with-file"); got != want {
		t.Errorf("get of a manifest at a URL: %+v, want %+v", got, want)
	}
	if n := s.Requests.Load() - before; n > 16 {
		t.Errorf("get of a manifest at a URL: %d requests", n)
	} else {
		t.Logf("get of a manifest at a URL (one partition, two files): %d requests", n)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", s.URLOf("pub/orders.idx"), "--count", "u7"); got.stdout != fmt.Sprintf("u7\t%d\n", strings.Count(manyRows.stdout, ",u7\n")) {
		t.Errorf("get --count of a manifest at a URL: %+v", got)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "info", s.URLOf("pub/orders.idx")); got.status != 0 || !strings.Contains(got.stdout, "(2 files)") {
		t.Errorf("info of a manifest at a URL: %+v", got)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "verify", s.URLOf("pub/orders.idx")); got.status != 2 || !strings.Contains(got.stderr, "is the manifest of an index over many files: get and info read it at its URL") {
		t.Errorf("verify of a manifest at a URL: %+v", got)
	}
	for _, args := range [][]string{{"update", "pub/orders/b.csv", "--index", s.URLOf("pub/orders.idx")}, {"plan", "--update", "--index", s.URLOf("pub/orders.idx")}} {
		if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", args...); got.status != 2 || !strings.Contains(got.stderr, "is at a URL, and an index over many files there is not updated in place") {
			t.Errorf("%q: %+v", args, got)
		}
	}
	s.Put("pub/orders/b.csv", []byte(strings.Replace(b.String(), "u7\n", "u8\n", 1))) // the same size, other bytes
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", s.URLOf("pub/orders.idx"), "u7"); got.status != 2 || !strings.Contains(got.stderr, "is stale") || !strings.Contains(got.stderr, "pub/orders/b.csv changed") {
		t.Errorf("get of a manifest at a URL whose file changed: %+v", got)
	}
	manifest, err := os.ReadFile(filepath.Join(data, "pub", "orders.idx"))
	if err != nil {
		t.Fatal(err)
	}
	s.Put("pub/gone.idx", []byte(strings.Replace(string(manifest), ".p-0.csvidx", ".p-9.csvidx", 1)))
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", s.URLOf("pub/gone.idx"), "u7"); got.status != 2 || !strings.Contains(got.stderr, ".p-9.csvidx does not exist") {
		t.Errorf("get of a manifest at a URL whose index file is missing: %+v", got)
	}

	// (q) An index over many files in object storage, published by build
	// --index URL and by commit --publish URL: get reads it as it read the
	// copied one; a second build replaces the manifest (If-Match), never
	// an object that is not one; files that are not at URLs are refused.
	for name, body := range map[string]string{"many/orders/a.csv": csv.String(), "many/orders/b.csv": b.String(), "many/notes.idx": "mine\n"} {
		if _, err := fake.Backend.PutObject("bucket", name, nil, strings.NewReader(body), int64(len(body)), nil); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{"s3://bucket/many/orders/a.csv", "s3://bucket/many/orders/b.csv"}
	want = manyRows
	want.stdout = strings.ReplaceAll(manyRows.stdout, "pub/orders/", "s3://bucket/many/orders/")
	for round := range 2 {
		if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", append([]string{"build", "--key", "user", "--index", "s3://bucket/many/orders.idx"}, files...)...); r.status != 0 || !strings.Contains(r.stderr, "the index is s3://bucket/many/orders.idx") {
			t.Fatalf("build %d of files at URLs, published: %+v", round, r)
		}
		if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/many/orders.idx", "u7", "u13", "--with-file"); got != want {
			t.Errorf("get of the published index, build %d: %+v, want %+v", round, got, want)
		}
	}
	object := func(name string) []byte {
		o, err := fake.Backend.GetObject("bucket", name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer o.Contents.Close()
		body, _ := io.ReadAll(o.Contents)
		return body
	}
	var published struct {
		PartsFile string `json:"parts_file"`
	}
	if err := json.Unmarshal(object("many/orders.idx"), &published); err != nil || published.PartsFile == "" {
		t.Fatalf("the published manifest: %v", err)
	}
	if table := object("many/" + published.PartsFile); !bytes.Contains(table, []byte("orders/a.csvorders/b.csv")) || bytes.Contains(table, []byte("s3://")) {
		t.Errorf("the published parts table names its files %q, want relative paths", table[bytes.LastIndexByte(table, 0)+1:])
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", append([]string{"build", "--key", "user", "--index", "s3://bucket/many/notes.idx"}, files...)...); r.status != 2 || !strings.Contains(r.stderr, "s3://bucket/many/notes.idx is not a csvidx manifest") {
		t.Errorf("build published over an object that is not a manifest: %+v", r)
	}
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "build", "pub/orders/a.csv", files[1], "--key", "user", "--index", "s3://bucket/many/mixed.idx"); r.status != 2 || !strings.Contains(r.stderr, "pub/orders/a.csv is a local file, and an index published at a URL reads its files at URLs") {
		t.Errorf("build published of a local file: %+v", r)
	}
	r = runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", append([]string{"plan", "--key", "user", "--index", "work.idx", "--partitions", "2"}, files...)...)
	if _, err := fmt.Sscanf(r.stdout, "%s %d %d", &plan, &tasks, &parts); err != nil || r.status != 0 {
		t.Fatalf("plan of files at URLs: %+v", r)
	}
	mapReduce(plan, tasks, parts)
	if r := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "commit", "--plan", plan, "--publish", "s3://bucket/many/steps.idx"); r.status != 0 || !strings.Contains(r.stderr, "the index is s3://bucket/many/steps.idx") {
		t.Fatalf("commit --publish: %+v", r)
	}
	if got := runBinary(t, filepath.Join(both, "csvidx"), data, empty, "", "get", "s3://bucket/many/steps.idx", "u7", "u13", "--with-file"); got != want {
		t.Errorf("get of the index the steps published: %+v, want %+v", got, want)
	}

	if got := runBinary(t, remoteBin, data, empty, "", "--version"); !strings.Contains(got.stdout, "remote build") {
		t.Errorf("csvidx-remote --version: %+v", got)
	}
}
