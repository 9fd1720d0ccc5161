package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPages writes the man pages from csvidx's command tree and checks that
// every command has one, holding its synopsis, description and flags, and
// that man renders them where it is installed.
func TestPages(t *testing.T) {
	root, err := readTree("")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := write(root, dir); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"csvidx.1":         {"csvidx", "--index", "csvidx-build(1)", "csvidx-get(1)"},
		"csvidx-build.1":   {"csvidx build FILE --key COLUMN", "Build reads FILE once", "--key", "--no-header", "--mem-limit-mib", "--threads", "--index", "EXAMPLE"},
		"csvidx-get.1":     {"csvidx get FILE KEY", "--keys-file", "--count", "--header"},
		"csvidx-update.1":  {"--no-compact"},
		"csvidx-compact.1": {"--no-wait"},
		"csvidx-info.1":    {"--json"},
		"csvidx-verify.1":  {"--mem-limit-mib"},
		"csvidx-drop.1":    {"Drop removes"},
		"csvidx-bench.1":   {"--rounds", "--cold"},
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want) {
		t.Errorf("%d pages written, want %d: a command is missing or new", len(entries), len(want))
	}
	for name, words := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("no page %s: %v", name, err)
		}
		page := strings.ReplaceAll(string(b), `\-`, "-")
		for _, w := range words {
			if !strings.Contains(page, w) {
				t.Errorf("%s does not say %q", name, w)
			}
		}
	}
	if _, err := exec.LookPath("man"); err == nil {
		out, err := exec.Command("man", "-l", "-Tutf8", filepath.Join(dir, "csvidx-build.1")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Index a CSV file by a column") {
			t.Errorf("man -l csvidx-build.1: %v\n%s", err, out)
		}
	}
}
