package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink matches an inline link's target: [text](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks checks that every relative link in the project's Markdown
// (README, changelog, docs/, results/, python/) names a file or directory
// that exists, so that moving a document or a curated run cannot leave the
// manual pointing nowhere. Web links and anchors within a page are not
// followed.
func TestDocLinks(t *testing.T) {
	root := "../.."
	var pages []string
	for _, dir := range []string{".", "docs", "docs/rounds", "results", "python"} {
		found, err := filepath.Glob(filepath.Join(root, dir, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, found...)
	}
	runs, err := filepath.Glob(filepath.Join(root, "results", "*", "SETUP.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, runs...)
	links := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			links++
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				rel, _ := filepath.Rel(root, page)
				t.Errorf("%s links to %s, which does not exist", rel, m[1])
			}
		}
	}
	if links < 10 {
		t.Fatalf("found only %d relative links in %d pages: is the pattern still right?", links, len(pages))
	}
}

// goTestName matches the name of a Go test or fuzz target in prose.
var goTestName = regexp.MustCompile(`\b(?:Test|Fuzz)[A-Z][A-Za-z0-9_]*`)

// TestDocTestNames checks that every Go test and fuzz target the README
// names as evidence (its guarantees table, mostly) exists, so that a test
// renamed or moved cannot leave a guarantee pointing at nothing.
func TestDocTestNames(t *testing.T) {
	root := "../.."
	defined := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			if name, ok := strings.CutPrefix(line, "func "); ok {
				name, _, _ = strings.Cut(name, "(")
				defined[name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, page := range []string{"README.md", "python/README.md"} {
		text, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range goTestName.FindAllString(string(text), -1) {
			named++
			if !defined[name] {
				t.Errorf("%s names %s, which no _test.go file defines", page, name)
			}
		}
	}
	if named < 10 {
		t.Fatalf("found only %d test names in the README: is the pattern still right?", named)
	}
}
