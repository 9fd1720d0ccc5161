package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes the test binary double as csvidx, so that the scripts run
// the real command line, as separate processes with real exit statuses.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"csvidx": main,
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each a
// sequence of commands with their expected output and exit status.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			for i, v := range env.Vars {
				if path, ok := strings.CutPrefix(v, "PATH="); ok {
					env.Vars[i] = "PATH=" + withoutHelpers(path)
				}
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "codecs": // the test binary reads compressed files (go test -tags codecs, or -tags remote)
				return codecsBuild, nil
			case "remote": // the test binary is the remote build (go test -tags remote)
				return remoteBuild, nil
			case "root":
				return os.Geteuid() == 0, nil
			case "devfull": // a device whose writes fail with ENOSPC
				_, err := os.Stat("/dev/full")
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"flipbyte": flipByte,
			"truncate": truncate,
			"repeat":   repeat,
			"orders":   orders,
			"waitfile": waitFile,
		},
	})
}

// withoutHelpers returns the list of directories path, less those that
// hold a csvidx-codecs or a csvidx-remote: the scripts' csvidx, the test
// binary, finds none to run for a compressed file or a URL (see runHelper)
// unless a script puts one on PATH.
func withoutHelpers(path string) string {
	var dirs []string
	for _, dir := range filepath.SplitList(path) {
		_, cerr := os.Stat(filepath.Join(dir, codecsName))
		_, rerr := os.Stat(filepath.Join(dir, remoteName))
		if cerr != nil && rerr != nil {
			dirs = append(dirs, dir)
		}
	}
	return strings.Join(dirs, string(filepath.ListSeparator))
}

// flipByte FILE OFFSET flips every bit of one byte of FILE in place; a
// negative OFFSET counts from the end.
func flipByte(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: flipbyte FILE OFFSET")
	}
	p := ts.MkAbs(args[0])
	data, err := os.ReadFile(p)
	ts.Check(err)
	off, err := strconv.Atoi(args[1])
	ts.Check(err)
	if off < 0 {
		off += len(data)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	ts.Check(err)
	_, err = f.WriteAt([]byte{^data[off]}, int64(off))
	ts.Check(err)
	ts.Check(f.Close())
}

// truncate FILE SIZE cuts FILE to SIZE bytes; a negative SIZE cuts that
// many bytes off the end.
func truncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate FILE SIZE")
	}
	p := ts.MkAbs(args[0])
	n, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	if n < 0 {
		st, err := os.Stat(p)
		ts.Check(err)
		n += st.Size()
	}
	ts.Check(os.Truncate(p, n))
}

// repeat N TEXT FILE appends TEXT (with \n for a newline) N times to FILE.
func repeat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: repeat N TEXT FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[2]), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	_, err = f.WriteString(strings.Repeat(strings.ReplaceAll(args[1], `\n`, "\n"), n))
	ts.Check(err)
	ts.Check(f.Close())
}

// orders N FILE writes a CSV of N rows, id,user, with users spread over a
// few thousand keys.
func orders(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: orders N FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var b strings.Builder
	b.WriteString("id,user\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,u%d\n", i, i*7919%4999)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// waitfile DIR [GLOB] waits (up to 10 s) until DIR holds a file that does
// not start with a dot, or one whose name matches GLOB: a writer's temporary
// file, say, so that a background build can be interrupted in the middle.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile DIR [GLOB]")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		entries, err := os.ReadDir(ts.MkAbs(args[0]))
		ts.Check(err)
		for _, e := range entries {
			if len(args) == 2 {
				if ok, err := filepath.Match(args[1], e.Name()); err != nil || ok {
					ts.Check(err)
					return
				}
			} else if !strings.HasPrefix(e.Name(), ".") {
				return
			}
		}
	}
	ts.Fatalf("no file appeared in %s", args[0])
}
