//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutOfDescriptors runs build, update and compact with a limit of
// open files (ulimit -n) and, inherited from the parent, every number of
// descriptors already open short of it: each one succeeds, or fails with
// one line and exit 2 leaving the old index intact, never with a Go runtime
// fatal error. Below minDescriptors, csvidx refuses to start.
func TestOutOfDescriptors(t *testing.T) {
	bin, err := exec.LookPath("csvidx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "o.csv")
	var b strings.Builder
	b.WriteString("id,user\n")
	for i := range 60_000 {
		fmt.Fprintf(&b, "%d,u%d\n", i, i*7919%4999)
	}
	writeFile(t, csv, b.String())
	run := func(limit, inherited int, args ...string) (int, string) {
		var extra []*os.File
		for range inherited {
			f, err := os.Open(csv)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			extra = append(extra, f)
		}
		cmd := exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit), bin}, args...)...)
		cmd.ExtraFiles = extra
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	if status, msg := run(minDescriptors-1, 0, "get", csv, "u1"); status != 2 || !strings.Contains(msg, "ulimit -n") {
		t.Fatalf("under the minimum: exit %d, %q", status, msg)
	}
	idx := csv + ".csvidx"
	failed := 0
	for inherited := 0; inherited <= minDescriptors-4; inherited++ { // 3: the standard files; 1 left for the dynamic loader
		for _, args := range [][]string{
			{"build", csv, "--key", "user", "--mem-limit-mib", "1", "--threads", "4"},
			{"update", csv},
			{"compact", csv},
		} {
			if out, err := exec.Command(bin, "build", csv, "--key", "user").CombinedOutput(); err != nil {
				t.Fatalf("build: %v\n%s", err, out)
			}
			f, err := os.OpenFile(csv, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("60000,u1\n")
			f.Close()
			if out, err := exec.Command(bin, "update", csv, "--no-compact").CombinedOutput(); err != nil {
				t.Fatalf("update: %v\n%s", err, out)
			}
			before, err := os.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			status, msg := run(minDescriptors, inherited, args...)
			switch {
			case status == 0:
				if out, err := exec.Command(bin, "verify", csv).CombinedOutput(); err != nil {
					t.Fatalf("%d inherited, %s: verify after it: %v\n%s", inherited, args[0], err, out)
				}
			case status == 2 && strings.HasPrefix(msg, "csvidx: ") && strings.Count(msg, "\n") == 1:
				failed++
				if after, _ := os.ReadFile(idx); !bytes.Equal(after, before) {
					t.Fatalf("%d inherited, %s failed (%q) and changed the index", inherited, args[0], msg)
				}
				if out, err := exec.Command(bin, "verify", csv).CombinedOutput(); err != nil {
					t.Fatalf("%d inherited, %s failed (%q); verify after it: %v\n%s", inherited, args[0], msg, err, out)
				}
			default:
				t.Fatalf("%d inherited, %s: exit %d, stderr %q", inherited, args[0], status, firstLines(msg, 3))
			}
		}
	}
	if failed == 0 {
		t.Fatal("no command ran out of descriptors: the test tests nothing")
	}
	t.Logf("%d runs out of descriptors, each a one-line error", failed)
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
