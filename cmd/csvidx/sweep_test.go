//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sweepTarget is what a --index path may find in the sweep: a setup that
// makes it in dir, and the path to give --index.
type sweepTarget struct {
	name  string
	index string
	setup func(t *testing.T, dir string)
}

// snapshot describes a file that csvidx did not make, to tell whether any
// byte of it changed: its type, and its contents' hash or its link's target.
type snapshot struct {
	mode fs.FileMode
	sum  [32]byte
	link string
}

func snap(t *testing.T, path string) (snapshot, bool) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return snapshot{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{mode: st.Mode().Type()}
	switch {
	case st.Mode().IsRegular():
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s.sum = sha256.Sum256(data)
	case st.Mode()&fs.ModeSymlink != 0:
		if s.link, err = os.Readlink(path); err != nil {
			t.Fatal(err)
		}
	}
	return s, true
}

// TestSweepForeignPaths runs every command with --index pointing at the
// CSV, a foreign file, a foreign tail, fence, lock or temporary file next to
// an index, a symbolic link, a directory, a FIFO and a private device node,
// and checks that no byte of any file csvidx did not make changed, that no
// such file was removed or created, and that nothing hangs. Writers that
// refuse say so in one line and exit 2.
func TestSweepForeignPaths(t *testing.T) {
	bin, err := exec.LookPath("csvidx")
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	csv := "id,user\n1,u1\n2,u2\n3,u1\n"
	writeFile(t, filepath.Join(src, "a.csv"), csv)
	if out, err := exec.Command(bin, "build", filepath.Join(src, "a.csv"), "--key", "user").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	index, err := os.ReadFile(filepath.Join(src, "a.csv.csvidx"))
	if err != nil {
		t.Fatal(err)
	}
	// withIndex puts a good index of a.csv at notes, whose other files the
	// target then makes foreign.
	withIndex := func(extra func(t *testing.T, dir string)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "notes"), index, 0o644); err != nil {
				t.Fatal(err)
			}
			extra(t, dir)
		}
	}
	targets := []sweepTarget{
		{"csv", "a.csv", func(*testing.T, string) {}},
		{"csv-hard-link", "hard", func(t *testing.T, dir string) {
			check(t, os.Link(filepath.Join(dir, "a.csv"), filepath.Join(dir, "hard")))
		}},
		{"csv-symlink", "link", func(t *testing.T, dir string) { check(t, os.Symlink("a.csv", filepath.Join(dir, "link"))) }},
		{"csv-as-tail", "a", func(t *testing.T, dir string) {
			check(t, os.Rename(filepath.Join(dir, "a.csv"), filepath.Join(dir, "a.tail")))
		}},
		{"foreign", "data.json", func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "data.json"), "{}\n") }},
		{"foreign-empty", "empty", func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "empty"), "") }},
		{"foreign-tail", "notes", withIndex(func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "notes.tail"), "log\n") })},
		{"foreign-fence", "notes", withIndex(func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "notes.fence"), "fence\n") })},
		{"foreign-lock", "notes", withIndex(func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "notes.lock"), "pid 42\n") })},
		{"foreign-tmp", "notes", withIndex(func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "notes.tmp-2024"), "report\n")
			writeFile(t, filepath.Join(dir, "notes.tail.tmp-1"), "")
			writeFile(t, filepath.Join(dir, "notes.fence.tmp-x"), "")
			writeFile(t, filepath.Join(dir, "notes.tmp-csvidx-0123456789abcdef"), "a user's bytes\n")
		})},
		{"symlink-foreign", "link", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "data.json"), "{}\n")
			check(t, os.Symlink("data.json", filepath.Join(dir, "link")))
		}},
		{"symlink-dangling", "link", func(t *testing.T, dir string) { check(t, os.Symlink("nowhere", filepath.Join(dir, "link"))) }},
		{"symlink-index", "link", func(t *testing.T, dir string) {
			check(t, os.WriteFile(filepath.Join(dir, "real"), index, 0o644))
			check(t, os.Symlink("real", filepath.Join(dir, "link")))
		}},
		{"lock-symlink", "a.csv.csvidx", func(t *testing.T, dir string) {
			check(t, os.Symlink(filepath.Join(dir, "victim"), filepath.Join(dir, "a.csv.csvidx.lock")))
		}},
		{"directory", "D", func(t *testing.T, dir string) {
			check(t, os.Mkdir(filepath.Join(dir, "D"), 0o755))
			writeFile(t, filepath.Join(dir, "D", "inside"), "x\n")
		}},
		{"fifo", "fifo", func(t *testing.T, dir string) { check(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)) }},
	}
	if os.Geteuid() == 0 {
		targets = append(targets, sweepTarget{"device", "null", func(t *testing.T, dir string) {
			// A private node like /dev/null (1, 3), never the real one.
			check(t, syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o644, 1<<8|3))
		}})
	}
	commands := []struct {
		args   []string
		writer bool
	}{
		{[]string{"build", "a.csv", "--key", "user"}, true},
		{[]string{"update", "a.csv"}, true},
		{[]string{"compact", "a.csv"}, true},
		{[]string{"get", "a.csv", "u1"}, false},
		{[]string{"info", "a.csv"}, false},
		{[]string{"verify", "a.csv"}, false},
		{[]string{"bench", "a.csv", "keys.txt", "--rounds", "1"}, false},
	}
	for _, tg := range targets {
		for _, c := range commands {
			t.Run(tg.name+"/"+c.args[0], func(t *testing.T) {
				dir := t.TempDir()
				writeFile(t, filepath.Join(dir, "a.csv"), csv)
				writeFile(t, filepath.Join(dir, "keys.txt"), "u1\n")
				tg.setup(t, dir)
				before := map[string]snapshot{}
				for _, name := range listAll(t, dir) {
					if s, ok := snap(t, filepath.Join(dir, name)); ok {
						before[name] = s
					}
				}
				args := append(c.args, "--index", tg.index)
				if tg.name == "csv-as-tail" {
					args[1] = "a.tail"
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, args...)
				cmd.Dir = dir
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				if ctx.Err() != nil {
					t.Fatalf("csvidx %s hangs", strings.Join(args, " "))
				}
				status := cmd.ProcessState.ExitCode()
				// Files csvidx did not make: all there, byte for byte. The
				// good index at notes (or real) is csvidx's, and may be replaced.
				for name, s := range before {
					if name == "notes" || name == "real" {
						continue
					}
					got, ok := snap(t, filepath.Join(dir, name))
					if !ok || got != s {
						t.Errorf("csvidx %s (exit %d, %v): %s changed or vanished\n%s", strings.Join(args, " "), status, err, name, stderr.String())
					}
				}
				if _, err := os.Lstat(filepath.Join(dir, "victim")); err == nil {
					t.Errorf("csvidx %s created the target of a link", strings.Join(args, " "))
				}
				if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
					t.Errorf("csvidx %s created the target of a dangling link", strings.Join(args, " "))
				}
				if status == 2 {
					msg := stderr.String()
					if !strings.HasPrefix(msg, "csvidx: ") || strings.Count(msg, "\n") != 1 {
						t.Errorf("csvidx %s: stderr is not one line: %q", strings.Join(args, " "), msg)
					}
				}
				refused := tg.name != "foreign-tmp" && tg.name != "foreign-fence" && tg.name != "symlink-index" ||
					tg.name == "symlink-index" && c.writer
				if refused && c.writer && status != 2 {
					t.Errorf("csvidx %s: exit %d, want 2 (refused)\n%s", strings.Join(args, " "), status, stderr.String())
				}
				if refused && c.writer {
					for _, name := range listAll(t, dir) {
						if _, ok := before[name]; !ok {
							t.Errorf("csvidx %s, refused, left a new file %s", strings.Join(args, " "), name)
						}
					}
				}
			})
		}
	}
}

// listAll returns the names of dir's entries.
func listAll(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(fmt.Errorf("setup: %w", err))
	}
}
