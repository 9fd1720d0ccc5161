package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegisterOpener: a URL that names no local file goes to the opener of
// its scheme, whatever its case, and Stat says a regular file without
// opening it; a local file whose name looks like a URL is the file; a URL
// of a scheme no opener reads keeps the advice to download it.
func TestRegisterOpener(t *testing.T) {
	var opened []string
	RegisterOpener(func(url string) (Source, error) {
		opened = append(opened, url)
		return nil, errors.New("the test opener opens nothing")
	}, "csvidx-test")
	if _, err := Open("CSVIDX-TEST://host/a.csv", 0); err == nil || len(opened) != 1 || opened[0] != "CSVIDX-TEST://host/a.csv" {
		t.Errorf("Open of a URL of the test scheme: %v, opener called with %q", err, opened)
	}
	st, err := Stat("csvidx-test://host/a.csv")
	if err != nil || !st.Mode().IsRegular() || len(opened) != 1 {
		t.Errorf("Stat of a URL of the test scheme: %v, %v (the opener called %d times)", st, err, len(opened))
	}
	if _, err := Open("csvidx-none://host/a.csv", 0); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "download it first") {
		t.Errorf("Open of a URL no opener reads: %v", err)
	}
	dir := t.TempDir()
	local := filepath.Join(dir, "csvidx-test:", "host")
	os.MkdirAll(local, 0o755)
	os.WriteFile(filepath.Join(local, "a.csv"), []byte("a,b\n1,2\n"), 0o644)
	wd, _ := os.Getwd()
	os.Chdir(dir)
	defer os.Chdir(wd)
	src, err := Open("csvidx-test://host/a.csv", 0)
	if err != nil {
		t.Fatalf("a local file named like a URL: %v", err)
	}
	defer src.Close()
	if _, ok := src.(*File); !ok || len(opened) != 1 {
		t.Errorf("a local file named like a URL opened as a %T", src)
	}
}
