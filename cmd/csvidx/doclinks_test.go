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
