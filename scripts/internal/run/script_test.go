package run

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestWorkspace checks both kinds of workspace with a given binary: a
// temporary one, which remove takes away, and a -work directory, made if
// missing, which remove leaves.
func TestWorkspace(t *testing.T) {
	s := &Script{Bin: "csvidx"}
	remove, err := s.Workspace("run-test")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(s.Bin) || filepath.Base(s.Bin) != "csvidx" {
		t.Errorf("Bin = %q, want csvidx made absolute", s.Bin)
	}
	if st, err := os.Stat(s.Work); err != nil || !st.IsDir() {
		t.Fatalf("the temporary workspace %q: %v", s.Work, err)
	}
	remove()
	if _, err := os.Stat(s.Work); !os.IsNotExist(err) {
		t.Errorf("remove left the temporary workspace %q (%v)", s.Work, err)
	}

	work := filepath.Join(t.TempDir(), "a", "b")
	s = &Script{Bin: "/bin/csvidx", Work: work}
	remove, err = s.Workspace("run-test")
	if err != nil {
		t.Fatal(err)
	}
	if s.Work != work || s.Bin != "/bin/csvidx" {
		t.Errorf("Work, Bin = %q, %q; want %q, /bin/csvidx", s.Work, s.Bin, work)
	}
	remove()
	if st, err := os.Stat(work); err != nil || !st.IsDir() {
		t.Errorf("remove took the -work directory: %v", err)
	}
}

// TestGenerateCSVGiven checks that a CSV given with -csv is kept, with
// nothing generated.
func TestGenerateCSVGiven(t *testing.T) {
	s := &Script{CSV: "given.csv", Work: t.TempDir(), Rows: 10}
	if err := s.GenerateCSV(); err != nil || s.CSV != "given.csv" {
		t.Errorf("GenerateCSV with -csv: CSV %q, %v; want given.csv, nil", s.CSV, err)
	}
}

// TestSaveResults checks the results file's name, its directory (made
// when missing) and its content: indented JSON and a final newline.
func TestSaveResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results", "tmp")
	name, err := SaveResults(dir, "extsort", 1234, map[string]any{"identical": true})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(name) != dir || !regexp.MustCompile(`^extsort-1234-\d{8}T\d{6}\.json$`).MatchString(filepath.Base(name)) {
		t.Errorf("name %q, want %s/extsort-1234-TIME.json", name, dir)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"identical\": true\n}\n"; string(data) != want {
		t.Errorf("wrote %q, want %q", data, want)
	}
}
