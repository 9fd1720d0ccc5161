package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultDelimiter: a tab for .tsv and .tab in any case, compressed
// too (.gz, .bgz, .zst), else a comma.
func TestDefaultDelimiter(t *testing.T) {
	for path, want := range map[string]byte{
		"a.tsv": '\t', "A.TSV": '\t', "dir/b.Tab": '\t', "a.csv": ',', "a.tsv.gz": '\t', "b.TAB.ZST": '\t', "c.tsv.bgz": '\t', "d.csv.gz": ',', "e.gz": ',', "f.tsv.xz": ',', "g.tsv.gz.bak": ',', "tsv": ',', "a.txt": ',',
	} {
		if got := DefaultDelimiter(path); got != want {
			t.Errorf("DefaultDelimiter(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestBuildDelimiterByName: a zero Delimiter reads a .tsv file with tabs;
// a key missing from a one-column header is a *DelimiterError with the
// delimiter that header holds, still ErrColumn.
func TestBuildDelimiterByName(t *testing.T) {
	dir := t.TempDir()
	tsv := filepath.Join(dir, "a.tsv")
	if err := os.WriteFile(tsv, []byte("id\tuser\n1\tu1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := Build(context.Background(), tsv, &BuildOptions{Key: "user"})
	if err != nil || info.Delimiter != "\t" || info.KeyColumn != 1 {
		t.Fatalf("build a.tsv: %+v, %v; want column 1 by tabs", info, err)
	}
	_, err = Build(context.Background(), tsv, &BuildOptions{Key: "user", Delimiter: ',', IndexPath: filepath.Join(dir, "x.csvidx")})
	var de *DelimiterError
	if !errors.As(err, &de) || de.Guess != '\t' || !errors.Is(err, ErrColumn) {
		t.Fatalf("build a.tsv with commas: %v; want a *DelimiterError guessing a tab, and ErrColumn", err)
	}
}
