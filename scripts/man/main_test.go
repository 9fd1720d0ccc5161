package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/cli"
	"github.com/spf13/pflag"
)

// TestPages writes the man pages and checks that every command has one,
// holding its synopsis and flags, and that man renders them where it is
// installed.
func TestPages(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	root := cli.Root()
	pages := map[string][]string{"csvidx.1": {"csvidx", "--index"}}
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		var flags []string
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { flags = append(flags, "--"+f.Name) })
		pages["csvidx-"+c.Name()+".1"] = append(flags, "csvidx "+c.Name())
	}
	if len(pages) < 9 {
		t.Fatalf("only %d pages expected: the tree is missing commands", len(pages))
	}
	for name, want := range pages {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("no page %s: %v", name, err)
		}
		page := strings.ReplaceAll(string(b), `\-`, "-")
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s does not mention %s", name, w)
			}
		}
	}
	if _, err := exec.LookPath("man"); err == nil {
		out, err := exec.Command("man", "-l", "-Tutf8", filepath.Join(dir, "csvidx-build.1")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Index a CSV file by one column") {
			t.Errorf("man -l csvidx-build.1: %v\n%s", err, out)
		}
	}
}
