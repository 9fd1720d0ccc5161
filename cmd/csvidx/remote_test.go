package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/source"
)

// TestCSVArgs: every command has its CSV argument in csvArgs, and it is
// the argument its usage names FILE (FILE... for build, whose every FILE
// is checked; join: RIGHT), so that a URL there runs the remote build.
func TestCSVArgs(t *testing.T) {
	for _, c := range commands {
		i, ok := csvArgs[c.name]
		if !ok {
			t.Errorf("%s: no CSV argument in csvArgs", c.name)
			continue
		}
		use := strings.Fields(c.new(&globals{}, streams{}).Use)
		if i < 0 { // no FILE: the command reads the files a plan names
			if slices.Contains(use, "FILE") || slices.Contains(use, "FILE...") {
				t.Errorf("%s: csvArgs says no FILE, and its usage is %q", c.name, use)
			}
			continue
		}
		if want := map[bool]string{true: "RIGHT", false: "FILE"}[c.name == "join"]; 1+i >= len(use) || strings.TrimSuffix(use[1+i], "...") != want {
			t.Errorf("%s: csvArgs says argument %d, and its usage is %q", c.name, i, use)
		}
	}
	if len(csvArgs) != len(commands) {
		t.Errorf("csvArgs names %d commands, and there are %d", len(csvArgs), len(commands))
	}
}

// unreadable is a standard input that must not be read.
type unreadable struct{ t *testing.T }

func (u unreadable) Read([]byte) (int, error) {
	u.t.Errorf("standard input read")
	return 0, os.ErrClosed
}

// TestRemoteArgs: the default and codecs builds stop each command whose
// CSV (or --index) is an http or https URL naming no local file before any
// work, with the error that runs the remote build (here, with no process
// to replace, its message: one line, how to get it), standard input unread
// and nothing written; URLs of other schemes, join's LEFT and local files
// named like URLs are the command's.
func TestRemoteArgs(t *testing.T) {
	if remoteBuild {
		t.Skip("the remote build reads URLs itself")
	}
	t.Chdir(t.TempDir())
	const url = "https://127.0.0.1:1/a.csv"
	wantErr := "csvidx: " + url + " is a URL, which csvidx reads through its remote build, csvidx-remote, found neither next to csvidx nor on PATH: build it from a clone of csvidx (" + remoteInstall + "), or download the file first\n"
	for _, c := range commands {
		args := []string{c.name, url, "-"} // bench's KEYSFILE
		switch c.name {
		case "map", "reduce", "commit":
			continue // no FILE: they read the files of a plan
		case "plan":
			args = []string{c.name, url, "--key", "id", "--index", "m.idx"}
		case "join":
			args = []string{c.name, "-", url, "--key", "id"}
		case "get":
			args = []string{c.name, url, "--keys-file", "-"}
		case "build", "compress":
			args = []string{c.name, url, "--key", "id"}
		case "info", "verify", "update", "compact", "drop":
			args = args[:2]
		}
		var out, errs bytes.Buffer
		if status := run(args, unreadable{t}, &out, &errs); status != exitError || out.Len() != 0 || errs.String() != wantErr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, status, out.String(), errs.String())
		}
	}
	const index = "HTTPS://127.0.0.1:1/a.csv.csvidx"
	for _, args := range [][]string{{"info", "a.csv", "--index", index}, {"--index=" + index, "get", "a.csv", "1"}} {
		var out, errs bytes.Buffer
		if status := run(args, unreadable{t}, &out, &errs); status != exitError || out.Len() != 0 || errs.String() != strings.Replace(wantErr, url, index, 1) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, status, out.String(), errs.String())
		}
	}

	local := "https://example.com/a.csv" // https:/example.com/a.csv, a local file
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, local, "id\n1\n")
	for _, c := range []struct {
		path string
		want bool
	}{
		{url, true}, {"HTTP://h/a.csv", true}, {"s3://bucket/a.csv", true}, {"ftp://h/a.csv", false},
		{local, false}, {"a.csv", false}, {"-", false},
	} {
		if got := remoteReads(c.path); got != c.want {
			t.Errorf("remoteReads(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	var out, errs bytes.Buffer
	if status := run([]string{"build", local, "--key", "id", "-q"}, unreadable{t}, &out, &errs); status != exitMatch {
		t.Errorf("build of a local file named like a URL: exit %d, %s", status, errs.String())
	}
}

// TestRemoteSchemes: the schemes the other builds run the remote build for
// are those package source/remote registers, checked in the remote build,
// where source.Stat says a URL of each is a regular file without asking
// its server, and a URL of another scheme names no file.
func TestRemoteSchemes(t *testing.T) {
	if !remoteBuild {
		t.Skip("the remote build's registrations (go test -tags remote)")
	}
	for _, s := range remoteSchemes {
		if st, err := source.Stat(s + "://127.0.0.1:1/a.csv"); err != nil || !st.Mode().IsRegular() {
			t.Errorf("source.Stat of a %s URL: %v, %v", s, st, err)
		}
	}
	if _, err := source.Stat("gs://bucket/a.csv"); err == nil {
		t.Errorf("source.Stat of a gs URL: no error")
	}
	var out bytes.Buffer
	if status := run([]string{"--version"}, nil, &out, &out); status != exitMatch || !strings.Contains(out.String(), "remote build") {
		t.Errorf("--version: exit %d, %q", status, out.String())
	}
}
