package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// TestPyRepr: strings come out as Python's repr of the str that
// os.fsdecode makes of their bytes (the wants are Python 3's output).
func TestPyRepr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a.csv", `'a.csv'`},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`both ' and "`, `'both \' and "'`},
		{`back\slash`, `'back\\slash'`},
		{"tab\tnl\ncr\r", `'tab\tnl\ncr\r'`},
		{"\xff.csv", `'\udcff.csv'`},
		{"nel\u0085", `'nel\x85'`},
		{"zw\u200bsp", `'zw\u200bsp'`},
		{"tag\U000e0001", `'tag\U000e0001'`},
		{"ключ🙂", `'ключ🙂'`},
		{"\x01\x7f", `'\x01\x7f'`},
		{"nb\u00a0sp", `'nb\xa0sp'`},
		{"\xed\xa0\x80", `'\udced\udca0\udc80'`}, // a surrogate in UTF-8 is not UTF-8
	} {
		if got := pyRepr(c.in); got != c.want {
			t.Errorf("pyRepr(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestAdvise: the binding words the library's neutral fixes as the Python
// calls to make, with csvidx.build's keywords for the options the index was
// built with, also where the error is wrapped.
func TestAdvise(t *testing.T) {
	facts := func(sentinel error) error { return fmt.Errorf("a.csv.csvidx: %w: x", sentinel) }
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"Unknown", &index.RebuildError{CSVPath: "a.csv", Err: fmt.Errorf("%w for a.csv", index.ErrNoIndex)},
			"no index for a.csv; call csvidx.build('a.csv', key=COLUMN)"},
		{"ByName", &index.RebuildError{CSVPath: "it's.csv", Err: facts(index.ErrStale),
			Built: &index.Definition{KeyColumn: 1, KeyName: "user id", Delimiter: ','}},
			`a.csv.csvidx: stale: x; call csvidx.build("it's.csv", key='user id')`},
		{"NumberNoHeaderTab", &index.RebuildError{CSVPath: "a.tsv", Err: facts(index.ErrCorrupt),
			Built: &index.Definition{KeyColumn: 3, NoHeader: true, Delimiter: '\t'}},
			`a.csv.csvidx: corrupt: x; call csvidx.build('a.tsv', key=3, no_header=True, delimiter='\t')`},
		{"ByteDelimiter", &index.RebuildError{CSVPath: "a.csv", Err: facts(index.ErrCorrupt),
			Built: &index.Definition{KeyColumn: 0, KeyName: "id", Delimiter: 0xfe}},
			`a.csv.csvidx: corrupt: x; call csvidx.build('a.csv', key='id', delimiter=b'\xfe')`},
		{"StaleTail", fmt.Errorf("while: %w", &index.RebuildError{CSVPath: "a.csv", Update: true, Err: facts(index.ErrStale),
			Built: &index.Definition{KeyColumn: 1, KeyName: "user", Delimiter: ','}}),
			"while: a.csv.csvidx: stale: x; call csvidx.build('a.csv', key='user') (the tail indexes rows appended after the main index; csvidx.update rescans them)"},
		{"Locked", &index.LockedError{Lock: "a.csv.csvidx.lock"},
			"another csvidx is writing this index (a.csv.csvidx.lock is locked); try again when it is done, or pass no_wait=False to wait"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := advise(c.err); got != c.want {
				t.Errorf("advise = %q\n want %q", got, c.want)
			}
		})
	}
}

// TestAdviseIndexDir: a bad index directory is named as Python names it,
// by the keyword where the index package names its option (for a
// directory that is not there, and for a file).
func TestAdviseIndexDir(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{filepath.Join(dir, "nope"), writeFile(t, filepath.Join(dir, "file"))} {
		_, err := index.HomeOf("a.csv", d)
		if !errors.Is(err, index.ErrIndexDir) {
			t.Fatalf("HomeOf(%q): %v, want ErrIndexDir", d, err)
		}
		want := strings.Replace(err.Error(), index.OptIndexDir, "(index_dir, CSVIDX_INDEX_DIR)", 1)
		if got := advise(err); got != want || want == err.Error() || strings.Contains(got, index.OptIndexDir) {
			t.Errorf("advise = %q\n want %q, in Python's words", got, want)
		}
	}
}

func writeFile(t *testing.T, path string) string {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
