//go:build !remote && unix

package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"
)

// fakeRemote is a csvidx-remote this test process must never become.
const fakeRemote = "#!/bin/sh\nexit 98\n"

// TestRunRemoteNotRun: the cases in which the default and codecs builds do
// not run the remote build for a URL, and what they say instead, through
// the machinery that runs the codecs build (runHelper): none found, the
// error as it was; one found, but this process is one that another csvidx
// ran as csvidx-remote, or standard input was read; a csvidx-codecs is
// not a csvidx-remote. None may exec: csvidx-remote here exits 98, which
// would end the test process.
func TestRunRemoteNotRun(t *testing.T) {
	if next := filepath.Join(filepath.Dir(executable()), remoteName); isExecutable(next) {
		t.Skipf("%s is next to the test binary", next)
	}
	was := processExits
	processExits = true
	defer func() { processExits = was }()
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	t.Setenv(remoteEnv, "")
	s := streams{out: &stdoutWriter{w: &bytes.Buffer{}}}
	url := &needsRemoteError{path: "https://h/a.csv"}

	writeExec(t, filepath.Join(bin, codecsName), fakeRemote)
	if status, err := runHelper(url, []string{"get", "x"}, s); status != -1 || err != url {
		t.Errorf("no csvidx-remote: runHelper = %d, %v; want -1 and the error as it was", status, err)
	}

	writeExec(t, filepath.Join(bin, remoteName), fakeRemote)
	taken := true
	for _, c := range []struct {
		name, env string
		s         streams
		want      string
	}{
		{"StdinTaken", "", streams{out: s.out, stdinTaken: &taken}, "https://h/a.csv is a URL, which csvidx's remote build reads: run " + filepath.Join(bin, remoteName) + " with the same arguments (this csvidx read standard input or wrote output already)"},
		{"RunAsRemote", "/x/csvidx", s, "https://h/a.csv is a URL, and " + executable() + ", which /x/csvidx ran to read it as csvidx's remote build, is not one: build it with -tags remote (" + remoteInstall + ")"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(remoteEnv, c.env)
			t.Setenv(reexecEnv, "/y/csvidx") // the codecs build's mark says nothing of the remote build
			status, err := runHelper(url, []string{"get", "x"}, c.s)
			if status != -1 || err == nil || err.Error() != c.want {
				t.Errorf("runHelper = %d, %v; want -1 and %q", status, err, c.want)
			}
		})
	}
}

// TestHelperEnviron: each build run gets its own variable set to the path
// of the csvidx that runs it, the other's left as it was.
func TestHelperEnviron(t *testing.T) {
	t.Setenv(reexecEnv, "/a/csvidx")
	t.Setenv(remoteEnv, "/old")
	env := remoteHelper.environ("/b/csvidx")
	if !slices.Contains(env, remoteEnv+"=/b/csvidx") || slices.Contains(env, remoteEnv+"=/old") || !slices.Contains(env, reexecEnv+"=/a/csvidx") {
		t.Errorf("remoteHelper.environ: %q", env)
	}
}
