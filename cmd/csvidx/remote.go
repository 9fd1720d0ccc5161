package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/csvidx/csvidx/source"
	"github.com/spf13/cobra"
)

// The remote build (go build -tags remote, remotebuild.go) links package
// source/remote, whose initialisation registers the openers of http, https
// and s3 URLs with package source, and everything the codecs build links,
// so that it reads whatever the builds that run it read, at a URL too (a
// compressed object is decoded by its backend, as a local file is). The other two builds link no HTTP
// client: net/http's initialisation made every local get 9-13% slower
// (see internal/layout's TestLocalPathLinksNoDecoder). They run the remote
// build, installed as csvidx-remote, in their place when a command names
// a CSV (or an index) by a URL that the remote build reads and that no
// local file has as its name, as git runs git-remote-https: remoteArgs
// tells before any work, and runHelper (reexec.go) runs it. A URL met
// later, among the files of an index over many (a manifest, a plan), is a
// source.URLError, which runHelper takes as well, before any output.
// Without one, they say how to get it.

// remoteName is the remote build's file name, next to csvidx or on PATH.
const remoteName = "csvidx-remote"

// remoteEnv marks the remote build's process that another build started:
// its value is the path of the csvidx that started it. A build that finds
// it set and meets a URL runs nothing: the csvidx-remote it runs as is not
// a remote build, and running csvidx-remote again would loop.
const remoteEnv = "CSVIDX_REMOTE_REEXEC"

// remoteInstall is the command that builds csvidx-remote next to the
// csvidx on PATH, from a clone of csvidx.
const remoteInstall = `go build -tags remote -o "$(dirname "$(command -v csvidx)")/csvidx-remote" ./cmd/csvidx`

// remoteSchemes are the URL schemes whose openers package source/remote
// registers, told here since the other builds may not import that package
// to ask it (TestRemoteSchemes checks them in the remote build). A URL of
// another scheme gets package source's advice to download it.
var remoteSchemes = []string{"http", "https", "s3"}

// csvArgs gives, for each command, which of its arguments names the CSV
// it indexes or reads through an index: RIGHT for join (LEFT is a stream,
// read by no build from a URL).
var csvArgs = map[string]int{
	"build": 0, "get": 0, "join": 1, "info": 0, "verify": 0,
	"update": 0, "compact": 0, "drop": 0, "compress": 0, "bench": 0,
	"plan": 0, "map": -1, "reduce": -1, "commit": -1, // -1: none; map, reduce and commit read files a plan names
}

// remoteReads reports whether the remote build reads path as a URL, which
// this build does not: source.IsURL holds, its scheme is one of
// remoteSchemes, and no local file has that name (which Open and Stat
// would read as the file it is). Only such a name costs a system call.
func remoteReads(path string) bool {
	if !source.IsURL(path) {
		return false
	}
	scheme, _, _ := strings.Cut(path, "://")
	known := false
	for _, s := range remoteSchemes {
		known = known || strings.EqualFold(scheme, s)
	}
	if !known {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// remoteArgs returns a *needsRemoteError when cmd, run with args, names a
// CSV by a URL that the remote build reads (see remoteReads), as its CSV
// argument (csvArgs) or as --index; nil in the remote build. The root
// command calls it before any work, so that the remote build, run in this
// one's place, finds standard input unread and standard output unwritten.
func remoteArgs(cmd *cobra.Command, args []string) error {
	if remoteBuild {
		return nil
	}
	if i, ok := csvArgs[cmd.Name()]; ok && i >= 0 && i < len(args) {
		names := args[i : i+1]
		if cmd.Name() == "build" || cmd.Name() == "plan" {
			names = args // an index over several files: any may be a URL
		}
		for _, a := range names {
			if remoteReads(a) {
				return &needsRemoteError{path: a}
			}
		}
	}
	for _, flag := range []string{"index", "publish"} {
		if f := cmd.Flags().Lookup(flag); f != nil && remoteReads(f.Value.String()) {
			return &needsRemoteError{path: f.Value.String()}
		}
	}
	return nil
}

// needsRemoteError is a URL that the remote build reads, met by a build
// that does not, which runs the remote build in its place (see runHelper).
// Its message is for when it finds none to run.
type needsRemoteError struct {
	path string // the URL, as given
}

func (e *needsRemoteError) Error() string {
	return e.path + " is a URL, which csvidx reads through its remote build, " + remoteName +
		", found neither next to csvidx nor on PATH: build it from a clone of csvidx (" + remoteInstall +
		"), or download the file first"
}

// localOnly returns the error of command (update, compact or drop), which
// writes local index files only, for a CSV at csvPath whose index is at a
// URL (see globals.remoteIndex): what to do instead.
func localOnly(command, csvPath string) error {
	csvPath = oneLine(csvPath)
	if command == "drop" {
		return fmt.Errorf("the index of %s is at a URL, and drop removes local files only: delete %s.csvidx and %s.csvidx.fence with the store's own tools", csvPath, csvPath, csvPath)
	}
	return fmt.Errorf("the index of %s is at a URL, which %s does not write in place: build it again (csvidx build %s --key KEY), or keep the CSV's indexes in a local directory (--index-dir DIR), where %s works", csvPath, command, csvPath, command)
}
