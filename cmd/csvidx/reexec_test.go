//go:build !codecs && !remote && unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/source"
)

// Compressed data's first bytes, as the tests of the default build's
// re-exec write them: what source tells each format by.
const (
	zstdHead  = "\x28\xb5\x2f\xfd\x24\x0d\x69\x00"
	bgzfHead  = "\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC\x02\x00\x1b\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	gzipHead  = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\r\xca\n"
	xzHead    = "\xfd7zXZ\x00\x00\x04\xe6\xd6"
	fakeExits = "#!/bin/sh\nexit 99\n" // a csvidx-codecs this test process must never become
)

// TestRunCodecsNotRun: the cases in which the default build does not run
// the codecs build, and what it says instead. None may exec: csvidx-codecs
// here exits 99, which would end the test process.
func TestRunCodecsNotRun(t *testing.T) {
	if next := filepath.Join(filepath.Dir(executable()), codecsName); isExecutable(next) {
		t.Skipf("%s is next to the test binary", next)
	}
	was := processExits
	processExits = true
	defer func() { processExits = was }()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	t.Setenv("PATH", bin)
	t.Setenv(reexecEnv, "")

	zst := &source.CompressedError{Path: "a.csv.zst", Format: "zstd"}
	wrapped := fmt.Errorf("the right file: %w", zst)
	taken := true
	streamsOf := func(taken *bool, wrote bool) streams {
		return streams{out: &stdoutWriter{w: &bytes.Buffer{}, wrote: wrote}, stdinTaken: taken}
	}
	for _, c := range []struct {
		name string
		err  error
		s    streams
	}{
		{"NotCompressed", errors.New("x"), streamsOf(nil, false)},
		{"Xz", &source.CompressedError{Path: "a.xz", Format: "xz"}, streamsOf(nil, false)},
		{"PlainGzip", &source.CompressedError{Path: "a.gz", Format: "gzip"}, streamsOf(nil, false)},
		{"Stream", &source.CompressedError{Path: "the left file", Format: "zstd", Stream: true}, streamsOf(nil, false)},
		{"NoCodecsBuild", wrapped, streamsOf(nil, false)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if status, err := runHelper(c.err, []string{"get", "x"}, c.s); status != -1 || err != c.err {
				t.Errorf("runHelper = %d, %v; want -1 and the error as it was", status, err)
			}
		})
	}

	writeExec(t, filepath.Join(bin, codecsName), fakeExits)
	for _, c := range []struct {
		name, env string
		s         streams
		want      string
	}{
		{"StdinTaken", "", streamsOf(&taken, false), "a.csv.zst is zstd-compressed, which csvidx's codecs build reads: run " + filepath.Join(bin, codecsName) + " with the same arguments (this csvidx read standard input or wrote output already)"},
		{"StdoutWritten", "", streamsOf(nil, true), "run " + filepath.Join(bin, codecsName) + " with the same arguments"},
		{"RunAsCodecs", "/x/csvidx", streamsOf(nil, false), "a.csv.zst is zstd-compressed, and " + executable() + ", which /x/csvidx ran to read it as csvidx's codecs build, is not one: build it with -tags codecs (" + codecsInstall + ")"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(reexecEnv, c.env)
			status, err := runHelper(wrapped, []string{"get", "x"}, c.s)
			if status != -1 || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("runHelper = %d, %v; want -1 and %q", status, err, c.want)
			}
		})
	}

	processExits = false // in tests that call run: never
	if status, err := runHelper(wrapped, nil, streamsOf(nil, false)); status != -1 || err != wrapped {
		t.Errorf("runHelper without processExits = %d, %v", status, err)
	}
}

// TestFindCodecs: csvidx-codecs next to csvidx first, then in PATH's
// absolute directories, executable files only, never csvidx itself.
func TestFindCodecs(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, onPath, other, rel := mk("home"), mk("onpath"), mk("other"), mk("rel")
	self := filepath.Join(home, "csvidx")
	writeExec(t, self, fakeExits)
	writeExec(t, filepath.Join(onPath, codecsName), fakeExits)
	writeExec(t, filepath.Join(rel, codecsName), fakeExits)
	t.Chdir(dir)
	t.Setenv("PATH", strings.Join([]string{"rel", "", other, onPath}, string(filepath.ListSeparator)))

	if got := codecsHelper.find(self); got != filepath.Join(onPath, codecsName) {
		t.Errorf("nothing next to csvidx: found %q, want the one on PATH (not the one in a relative directory)", got)
	}
	next := filepath.Join(home, codecsName)
	if err := os.WriteFile(next, []byte(fakeExits), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := codecsHelper.find(self); got != filepath.Join(onPath, codecsName) {
		t.Errorf("a file next to csvidx that is not executable: found %q", got)
	}
	os.Chmod(next, 0o755)
	if got := codecsHelper.find(self); got != next {
		t.Errorf("found %q, want %q next to csvidx", got, next)
	}
	if got := codecsHelper.find(""); got != filepath.Join(onPath, codecsName) {
		t.Errorf("csvidx's path unknown: found %q", got)
	}
	// A default build installed as csvidx-codecs: itself, never run.
	if got := codecsHelper.find(next); got != "" {
		t.Errorf("run as csvidx-codecs: found %q, want none", got)
	}
	os.Remove(next)
	if err := os.Link(self, next); err != nil {
		t.Fatal(err)
	}
	if got := codecsHelper.find(self); got != "" {
		t.Errorf("csvidx-codecs is csvidx (a hard link): found %q, want none", got)
	}
	t.Setenv("PATH", "")
	os.Remove(next)
	if got := codecsHelper.find(self); got != "" {
		t.Errorf("no PATH: found %q", got)
	}
}

// TestBeforeStdin: a CSV that the codecs build reads is its
// *source.CompressedError before standard input is read; anything else,
// errors included, is left to the command.
func TestBeforeStdin(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		refused    bool
	}{
		{"Plain", "id\n1\n", false},
		{"Zstd", zstdHead, true},
		{"BGZF", bgzfHead, true},
		{"Gzip", gzipHead, true},
		{"Xz", xzHead, false},
	} {
		p := filepath.Join(dir, c.name)
		writeFile(t, p, c.data)
		var ce *source.CompressedError
		if err := beforeStdin(p); errors.As(err, &ce) != c.refused || !c.refused && err != nil {
			t.Errorf("%s: beforeStdin = %v", c.name, err)
		}
	}
	if err := beforeStdin(filepath.Join(dir, "missing.csv")); err != nil {
		t.Errorf("a missing file: %v", err)
	}
}

// TestCodecsEnv: the codecs build gets this process's environment with
// reexecEnv set once, to the path of the csvidx that runs it, whatever
// value it had.
func TestCodecsEnv(t *testing.T) {
	t.Setenv(reexecEnv, "")
	t.Setenv("CSVIDX_TEST_KEPT", "yes")
	env := codecsHelper.environ("/bin/csvidx")
	var marks []string
	for _, kv := range env {
		if strings.HasPrefix(kv, reexecEnv+"=") {
			marks = append(marks, kv)
		}
	}
	if len(marks) != 1 || marks[0] != reexecEnv+"=/bin/csvidx" || !slices.Contains(env, "CSVIDX_TEST_KEPT=yes") {
		t.Errorf("environ: %v, kept %v", marks, slices.Contains(env, "CSVIDX_TEST_KEPT=yes"))
	}
}
