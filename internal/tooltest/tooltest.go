// Package tooltest runs, for tests, the command-line tools that csvidx's
// differential tests compare with (bgzip, zstd, pzstd, gzip, xz): it finds
// them, and makes compressed files with them. Only tests import it.
package tooltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Need returns the path of the command name; without it, the test is
// skipped, or fails when CSVIDX_REQUIRE_TOOLS is set (test.sh sets it, and
// installs the tools).
func Need(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CSVIDX_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s is needed (test.sh installs it): %v", name, err)
		}
		t.Skipf("no %s: %v", name, err)
	}
	return p
}

// Compress writes data to a file in a new test directory and runs the
// shell script (sh -c) with $IN set to that file and $OUT to name in the
// same directory, and returns $OUT's path. The script runs tool, which the
// test needs (see Need).
func Compress(t testing.TB, data []byte, tool, script, name string) string {
	t.Helper()
	Need(t, tool)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "plain.csv"), filepath.Join(dir, name)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("sh", "-c", script)
	c.Env = append(os.Environ(), "IN="+in, "OUT="+out)
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", script, err, b)
	}
	return out
}
