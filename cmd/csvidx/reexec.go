//go:build !codecs

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/csvidx/csvidx/source"
)

// The default build runs the codecs build in its place for a file in a
// format only that build reads (see compressed.go): csvidx-codecs, found
// next to this executable (symbolic links resolved) or else on PATH, with
// the same arguments, environment and standard files, and reexecEnv set.
// On Unix it replaces this process (execve: no child, no pipes, the exit
// status its own); elsewhere it runs as a child whose exit status this
// process exits with. The commands meet such a file before they read
// standard input or write standard output (get reads --keys-file - once
// the index is open; bench and join check first, see beforeStdin), so the
// codecs build reads and writes them whole; if they did not, this build
// does not run it and says so.

// codecsBuild says this build reads the formats of package compressed.
const codecsBuild = false

// runCodecs runs the codecs build in this process's place when err, the
// command's error, is a file the codecs build reads, and returns the exit
// status to exit with (-1 for none) or the error to report: err itself
// when there is no codecs build to run (decompressAdvice then says how to
// get one), or why the one found was not run. args are the command line as
// given, s the command's standard files.
func runCodecs(err error, args []string, s streams) (int, error) {
	n, ok := codecsNeeded(err)
	if !processExits || !ok {
		return -1, err
	}
	self := executable()
	if from := os.Getenv(reexecEnv); from != "" {
		return -1, fmt.Errorf("%s, and %s, which %s ran %s as csvidx's codecs build, is not one: build it with -tags codecs (%s)",
			n.what, self, from, n.purpose, codecsInstall)
	}
	path := findCodecs(self)
	switch {
	case path == "":
		return -1, err
	case s.stdinTaken != nil && *s.stdinTaken || wrote(s.out):
		return -1, fmt.Errorf("%s, which csvidx's codecs build %s: run %s with the same arguments (this csvidx read standard input or wrote output already)",
			n.what, n.verb, path)
	}
	status, rerr := execCodecs(path, args, self)
	if rerr != nil {
		return -1, fmt.Errorf("%s, which csvidx's codecs build %s, and running %s failed: %w", n.what, n.verb, path, rerr)
	}
	return status, nil
}

// A codecsNeed says what asks for the codecs build: "FILE is
// zstd-compressed", which it "reads", "to read it"; or "csvidx compress
// writes compressed files", which it "does", "for it".
type codecsNeed struct{ what, verb, purpose string }

// codecsNeeded reports whether err asks for the codecs build: a file it
// reads, or one of its commands.
func codecsNeeded(err error) (codecsNeed, bool) {
	var ce *source.CompressedError
	if errors.As(err, &ce) && codecsReads(ce) {
		return codecsNeed{ce.Path + " is " + ce.What(), "reads", "to read it"}, true
	}
	var nc *needsCodecsError
	if errors.As(err, &nc) {
		return codecsNeed{"csvidx " + nc.command + " " + nc.does, "does", "for it"}, true
	}
	return codecsNeed{}, false
}

// needsCodecsError is a command of the codecs build run by the default
// build (see runCodecs), which runs the codecs build in its place.
type needsCodecsError struct {
	command, does string
}

func (e *needsCodecsError) Error() string {
	return fmt.Sprintf("csvidx %s %s, which only csvidx's codecs build does: build it with -tags codecs (%s)", e.command, e.does, codecsInstall)
}

// compressFile is the compress command's work, which this build leaves
// to the codecs build.
func compressFile(context.Context, compressOptions) (compressResult, error) {
	return compressResult{}, &needsCodecsError{command: "compress", does: "writes compressed files"}
}

// codecsEnv returns this process's environment for the codecs build, with
// reexecEnv set to self in place of any value it had: with two, the
// program started would see the first.
func codecsEnv(self string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, reexecEnv+"=") })
	return append(env, reexecEnv+"="+self)
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

// findCodecs returns the path of the codecs build: csvidx-codecs next to
// self, else on PATH; "" when there is none, or when it is self (a default
// build installed under that name, which would only run itself).
func findCodecs(self string) string {
	var path string
	if self != "" {
		if p := filepath.Join(filepath.Dir(self), codecsName+exeSuffix); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		path = lookPath(codecsName + exeSuffix)
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

// beforeStdin returns the *source.CompressedError of the CSV at path when
// the codecs build reads it: a command that reads standard input before it
// opens the CSV (bench's KEYSFILE -; join's LEFT -, whose header names
// RIGHT's index) calls it first, so that the codecs build, run in its
// place, finds standard input whole. It opens the CSV once more: get,
// whose lookups count every system call, reads its keys from standard
// input after the index instead (see keyInput).
func beforeStdin(path string) error {
	var ce *source.CompressedError
	if err := source.Check(path); errors.As(err, &ce) && codecsReads(ce) {
		return ce
	}
	return nil
}
