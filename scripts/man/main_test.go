package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedPages checks that docs/man holds the pages that the help
// of csvidx makes now, as `go run .` writes them: a help text changed
// without running it fails here.
func TestCommittedPages(t *testing.T) {
	_, pages := renderTree(t)
	diff, err := differences(pages, committed)
	if err != nil {
		t.Fatal(err)
	}
	if len(diff) > 0 {
		t.Errorf("docs/man is not what csvidx's help makes: %s differ, are missing or are extra; run: cd scripts/man && go run .", strings.Join(diff, ", "))
	}
}

// TestPages checks that every command has a page, holding its synopsis,
// description and flags.
func TestPages(t *testing.T) {
	_, pages := renderTree(t)
	want := map[string][]string{
		"csvidx.1":                       {"csvidx", "--index", "csvidx-build(1)", "csvidx-get(1)", "csvidx-completion(1)", "EXAMPLE"},
		"csvidx-build.1":                 {"csvidx build FILE... --key COLUMNS", "Build reads FILE once", "--key", "--no-header", "--mem-limit-mib", "--threads", "--index", "EXAMPLE"},
		"csvidx-get.1":                   {"csvidx get FILE KEY", "--keys-file", "--count", "--header"},
		"csvidx-join.1":                  {"csvidx join LEFT RIGHT", "--semi", "--right-semi", "--right-key", "--nulls"},
		"csvidx-update.1":                {"--no-compact"},
		"csvidx-compact.1":               {"--no-wait"},
		"csvidx-info.1":                  {"--json"},
		"csvidx-verify.1":                {"--mem-limit-mib"},
		"csvidx-drop.1":                  {"Drop removes"},
		"csvidx-compress.1":              {"--frame-kib", "seekable"},
		"csvidx-bench.1":                 {"--rounds", "--cold"},
		"csvidx-plan.1":                  {"csvidx plan FILE...", "--index"},
		"csvidx-map.1":                   {"csvidx map --plan PLAN --task I"},
		"csvidx-reduce.1":                {"csvidx reduce --plan PLAN --partition J"},
		"csvidx-commit.1":                {"csvidx commit --plan PLAN"},
		"csvidx-completion.1":            {"csvidx-completion-bash(1)"},
		"csvidx-completion-bash.1":       {"bash-completion"},
		"csvidx-completion-zsh.1":        {"zsh"},
		"csvidx-completion-fish.1":       {"fish"},
		"csvidx-completion-powershell.1": {"powershell"},
	}
	if len(pages) != len(want) {
		t.Errorf("%d pages written, want %d: a command is missing or new", len(pages), len(want))
	}
	for name, words := range want {
		page, ok := pages[name]
		if !ok {
			t.Errorf("no page %s", name)
			continue
		}
		text := strings.ReplaceAll(string(page), `\-`, "-")
		for _, w := range words {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q", name, w)
			}
		}
	}
}

// TestPagesSayTheHelp renders each page of csvidx's own commands with man
// and checks that it says all their help says, word for word: the short
// and long descriptions, every flag's usage and every example line. The
// help is plain text and cobra/doc reads Markdown: KEY<TAB>COUNT came out
// as KEYCOUNT, and the description's indented example lines ran into a
// paragraph.
func TestPagesSayTheHelp(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("no man (Debian: apt-get install man-db)")
	}
	tree, pages := renderTree(t)
	dir := t.TempDir()
	var check func(d docCommand, path string)
	check = func(d docCommand, path string) {
		name := strings.ReplaceAll(path, " ", "-") + ".1"
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, pages[name], 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("man", "--no-hyphenation", "--no-justification", "-l", file)
		cmd.Env = append(os.Environ(), "MANWIDTH=1000", "MAN_KEEP_FORMATTING=", "LC_ALL=C.UTF-8")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("man -l %s: %v\n%s", name, err, out)
		}
		page := words(string(out))
		for _, line := range strings.Split(d.Long, "\n") {
			if strings.TrimLeft(line, " \t") != line {
				t.Errorf("%s: the help's description has an indented line, which the page runs into its paragraph (put examples in Example): %q", name, line)
			}
		}
		says := []string{d.Short}
		says = append(says, strings.Split(d.Long, "\n\n")...)
		for _, f := range d.Flags {
			says = append(says, unquoteUsage(f.Usage))
		}
		says = append(says, strings.Split(d.Example, "\n")...)
		for _, s := range says {
			if s = words(s); s != "" && !strings.Contains(page, s) {
				t.Errorf("%s does not say %q; it says:\n%s", name, s, out)
			}
		}
		for _, sub := range d.Commands {
			if sub.Use != completionCommand { // cobra's, in Markdown
				check(sub, path+" "+strings.Fields(sub.Use)[0])
			}
		}
	}
	check(tree, "csvidx")
}

// renderTree returns csvidx's command tree and its pages. It stats the
// CLI's sources first: go test caches a result by the files the test
// opened, and not by those of the go run that prints the tree.
func renderTree(t *testing.T) (docCommand, map[string][]byte) {
	t.Helper()
	sources, err := filepath.Glob("../../cmd/csvidx/*.go")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no sources of csvidx in ../../cmd/csvidx: %v", err)
	}
	for _, src := range sources {
		os.Stat(src)
	}
	tree, err := readTree("")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := render(tree)
	if err != nil {
		t.Fatal(err)
	}
	return tree, pages
}

// words returns s with each run of white space made one space.
func words(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
