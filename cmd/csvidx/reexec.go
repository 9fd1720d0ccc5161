//go:build !remote

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/csvidx/csvidx/source"
)

// The default build and the codecs build run another build in their place
// for what only it reads: the default build runs the codecs build for a
// file in a format only that build reads (see compressed.go), and both run
// the remote build for a CSV named by a URL (see remote.go). The build run,
// a helper, is found next to this executable (symbolic links resolved) or
// else on PATH, under its name (csvidx-codecs, csvidx-remote), and gets the
// same arguments, environment and standard files, with its variable
// (CSVIDX_CODECS_REEXEC, CSVIDX_REMOTE_REEXEC) set. On Unix it replaces
// this process (execve: no child, no pipes, the exit status its own);
// elsewhere it runs as a child whose exit status this process exits with.
// The commands meet a compressed file before they read standard input or
// write standard output (get reads --keys-file - once the index is open;
// bench and join check first, see beforeStdin), and a URL before any work
// (see remoteArgs), so the helper reads and writes them whole; if they did
// not, this build does not run it and says so.

// remoteBuild says this build reads remote CSVs (see remote.go).
const remoteBuild = false

// A helper is a build of csvidx that this one runs in its place for what
// only it reads.
type helper struct {
	name    string // its executable's name, less any extension: csvidx-codecs
	tag     string // the build tag that makes it: codecs
	env     string // the variable set in its process to the path of the csvidx that ran it
	install string // the command that builds it next to the csvidx on PATH
}

// The builds this one may run in its place.
var (
	codecsHelper = helper{name: codecsName, tag: "codecs", env: reexecEnv, install: codecsInstall}
	remoteHelper = helper{name: remoteName, tag: "remote", env: remoteEnv, install: remoteInstall}
)

// runHelper runs the build that err, the command's error, asks for (see
// helperNeeded) in this process's place, and returns the exit status to
// exit with (-1 for none) or the error to report: err itself when there is
// no such build to run (its message, or decompressAdvice for a compressed
// file, then says how to get one), or why the one found was not run. args
// are the command line as given, s the command's standard files.
func runHelper(err error, args []string, s streams) (int, error) {
	n, ok := helperNeeded(err)
	if !processExits || !ok {
		return -1, err
	}
	h := n.helper
	self := executable()
	if from := os.Getenv(h.env); from != "" {
		return -1, fmt.Errorf("%s, and %s, which %s ran %s as csvidx's %s build, is not one: build it with -tags %s (%s)",
			n.what, self, from, n.purpose, h.tag, h.tag, h.install)
	}
	path := h.find(self)
	switch {
	case path == "":
		return -1, err
	case s.stdinTaken != nil && *s.stdinTaken || wrote(s.out):
		return -1, fmt.Errorf("%s, which csvidx's %s build %s: run %s with the same arguments (this csvidx read standard input or wrote output already)",
			n.what, h.tag, n.verb, path)
	}
	status, rerr := execHelper(path, args, h.environ(self))
	if rerr != nil {
		return -1, fmt.Errorf("%s, which csvidx's %s build %s, and running %s failed: %w", n.what, h.tag, n.verb, path, rerr)
	}
	return status, nil
}

// A need says which build an error asks for, and why: "FILE is
// zstd-compressed", which the codecs build "reads", "to read it"; "csvidx
// compress writes compressed files", which it "does", "for it"; or "URL is
// a URL", which the remote build "reads", "to read it".
type need struct {
	helper              helper
	what, verb, purpose string
}

// helperNeeded reports whether err asks for another build: a CSV named by
// a URL, which the remote build reads; or, in the default build, a file
// the codecs build reads, or one of its commands.
func helperNeeded(err error) (need, bool) {
	var re *needsRemoteError
	if errors.As(err, &re) {
		return need{remoteHelper, re.path + " is a URL", "reads", "to read it"}, true
	}
	var ue *source.URLError // a file at a URL met late: one of the files of an index over many
	if !remoteBuild && errors.As(err, &ue) && remoteReads(ue.Path) {
		return need{remoteHelper, ue.Path + " is a URL", "reads", "to read it"}, true
	}
	if codecsBuild {
		return need{}, false
	}
	var ce *source.CompressedError
	if errors.As(err, &ce) && codecsReads(ce) {
		return need{codecsHelper, ce.Path + " is " + ce.What(), "reads", "to read it"}, true
	}
	var nc *needsCodecsError
	if errors.As(err, &nc) {
		return need{codecsHelper, "csvidx " + nc.command + " " + nc.does, "does", "for it"}, true
	}
	return need{}, false
}

// needsCodecsError is a command of the codecs build run by the default
// build (see runHelper), which runs the codecs build in its place.
type needsCodecsError struct {
	command, does string
}

func (e *needsCodecsError) Error() string {
	return fmt.Sprintf("csvidx %s %s, which only csvidx's codecs build does: build it with -tags codecs (%s)", e.command, e.does, codecsInstall)
}

// environ returns this process's environment for h, with h's variable set
// to self in place of any value it had: with two, the program started
// would see the first.
func (h helper) environ(self string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, h.env+"=") })
	return append(env, h.env+"="+self)
}

// wrote reports whether anything was written to out, standard output.
func wrote(out io.Writer) bool {
	w, ok := out.(*stdoutWriter)
	return ok && w.wrote
}

// executable returns the path of this executable, its symbolic links
// resolved, or "" when the system cannot tell.
func executable() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if p, err := filepath.EvalSymlinks(self); err == nil {
		self = p
	}
	return self
}

// find returns the path of h: its executable next to self, else on PATH;
// "" when there is none, or when it is self (another build installed under
// h's name, which would only run itself).
func (h helper) find(self string) string {
	var path string
	if self != "" {
		if p := filepath.Join(filepath.Dir(self), h.name+exeSuffix); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		path = lookPath(h.name + exeSuffix)
	}
	if path == "" || self == "" {
		return path
	}
	a, aerr := os.Stat(path)
	b, berr := os.Stat(self)
	if aerr == nil && berr == nil && os.SameFile(a, b) {
		return ""
	}
	return path
}
