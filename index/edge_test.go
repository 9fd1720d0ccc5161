package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name    string
		csv     string
		opts    *BuildOptions
		err     error  // Build's error, if it must fail
		errText string // and what its message must say
		key     string // a key to look up
		want    string // its rows
		header  string // what Header returns
	}{
		{name: "Empty", csv: "", opts: &BuildOptions{Key: "0"}, key: "x"},
		{name: "EmptyByName", csv: "", opts: &BuildOptions{Key: "user"}, err: ErrColumn, errText: "no header"},
		{name: "OnlyBlankLines", csv: "\n\r\n", opts: &BuildOptions{Key: "0", NoHeader: true}, key: ""},
		{name: "HeaderOnly", csv: "id,user\n", opts: &BuildOptions{Key: "user"}, key: "user", header: "id,user\n"},
		{name: "HeaderUnterminated", csv: "id,user", opts: &BuildOptions{Key: "user"}, key: "user", header: "id,user\n"},
		{name: "BOMHeader", csv: "\xEF\xBB\xBFid,user\n1,u1\n", opts: &BuildOptions{Key: "id"}, key: "1", want: "1,u1\n", header: "id,user\n"},
		{name: "UnknownColumn", csv: "id,user\n1,2\n", opts: &BuildOptions{Key: "usr"}, err: ErrColumn, errText: `"id", "user"`},
		{name: "NameWithNoHeader", csv: "id,user\n", opts: &BuildOptions{Key: "user", NoHeader: true}, err: ErrColumn, errText: "0-based"},
		{name: "NegativeColumn", csv: "a\n", opts: &BuildOptions{Key: "-1", NoHeader: true}, err: ErrColumn},
		{name: "NumberNamedColumn", csv: "1,0\nx,y\n", opts: &BuildOptions{Key: "0"}, key: "y", want: "x,y\n", header: "1,0\n"},
		{name: "ColumnPastEveryRow", csv: "a,b\n1,2\n", opts: &BuildOptions{Key: "7"}, err: ErrNoKeys, errText: `column 7 (the header has 2 columns: "a", "b"; delimiter ",")`},
		{name: "WrongDelimiter", csv: "a;b\n1;2\n", opts: &BuildOptions{Key: "1"}, err: ErrNoKeys, errText: `delimiter ","`},
		{name: "ColumnPastSomeRows", csv: "a,b\n1\n2,x\n", opts: &BuildOptions{Key: "1"}, key: "x", want: "2,x\n", header: "a,b\n"},
		{name: "DuplicateHeaderName", csv: "id,user,user\n1,2,3\n", opts: &BuildOptions{Key: "user"}, err: ErrAmbiguousColumn, errText: "columns 1 and 2"},
		{name: "LoneCRLines", csv: "a,b\r1,2\r3,4\r", opts: &BuildOptions{Key: "a"}, err: ErrLineEnds, errText: "at byte 3"},
		{name: "LoneCRLinesNoHeader", csv: "1,2\r3,4\r", opts: &BuildOptions{Key: "0", NoHeader: true}, err: ErrLineEnds},
		{name: "LoneCRInQuotes", csv: "a,b\n\"x\ry\",2\n", opts: &BuildOptions{Key: "a"}, key: "x\ry", want: "\"x\ry\",2\n", header: "a,b\n"},
		{name: "LoneCRInDataRow", csv: "a,b\n1,x\ry\n", opts: &BuildOptions{Key: "b"}, key: "x\ry", want: "1,x\ry\n", header: "a,b\n"},
		{name: "QuotedHeaderName", csv: "\"user id\",\"a\"\"b\"\n1,2\n", opts: &BuildOptions{Key: `a"b`}, key: "2", want: "1,2\n", header: "\"user id\",\"a\"\"b\"\n"},
		{name: "NoHeaderFirstRow", csv: "1,u1\n2,u1", opts: &BuildOptions{Key: "1", NoHeader: true}, key: "u1", want: "1,u1\n2,u1\n"},
		{name: "UnterminatedQuote", csv: "a,b\n1,\"u1\n2,u1\n", opts: &BuildOptions{Key: "b"}, key: "u1\n2,u1\n", want: "1,\"u1\n2,u1\n\n", header: "a,b\n"},
		{name: "NULAndInvalidUTF8", csv: "a,b\n\x00,\xff\xfe\n", opts: &BuildOptions{Key: "b"}, key: "\xff\xfe", want: "\x00,\xff\xfe\n", header: "a,b\n"},
		{name: "Tabs", csv: "a\tb\n1\tx,y\n", opts: &BuildOptions{Key: "b", Delimiter: '\t'}, key: "x,y", want: "1\tx,y\n", header: "a\tb\n"},
		{name: "QuoteDelimiter", csv: "a\n", opts: &BuildOptions{Key: "0", Delimiter: '"'}, errText: "delimiter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeCSV(t, tc.csv)
			_, err := Build(context.Background(), p, tc.opts)
			if tc.err != nil || tc.errText != "" {
				if err == nil || (tc.err != nil && !errors.Is(err, tc.err)) || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("Build = %v, want %v saying %q", err, tc.err, tc.errText)
				}
				if _, serr := os.Stat(DefaultIndexPath(p)); !errors.Is(serr, os.ErrNotExist) {
					t.Fatalf("a failed build left an index file: %v", serr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ix, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if got := get(t, ix, tc.key); got != tc.want {
				t.Errorf("Get(%q) = %q, want %q", tc.key, got, tc.want)
			}
			if h, err := ix.Header(); err != nil || string(h) != tc.header {
				t.Errorf("Header = %q, %v; want %q", h, err, tc.header)
			}
			if res, err := Verify(context.Background(), p, nil); err != nil || !res.Equal {
				t.Errorf("Verify = %+v, %v", res, err)
			}
		})
	}
}

func TestMissingFiles(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "a.csv")
	if _, err := Build(context.Background(), csv, &BuildOptions{Key: "0"}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Build of a missing CSV = %v", err)
	}
	os.WriteFile(csv, []byte("a,b\n"), 0o644)
	if _, err := Open(csv, nil); !errors.Is(err, ErrNoIndex) || !strings.HasSuffix(err.Error(), "; build the index") {
		t.Errorf("Open without an index = %v", err)
	}
	if _, err := Verify(context.Background(), csv, nil); !errors.Is(err, ErrNoIndex) {
		t.Errorf("Verify without an index = %v", err)
	}
	if _, err := Build(context.Background(), dir, &BuildOptions{Key: "0"}); err == nil {
		t.Error("Build of a directory succeeded")
	}
	// An index elsewhere, for a CSV in a read-only place.
	other := filepath.Join(t.TempDir(), "elsewhere.idx")
	if _, err := Build(context.Background(), csv, &BuildOptions{Key: "b", IndexPath: other}); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(csv, &Options{IndexPath: other})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	// A file that is not an index at the index path.
	os.WriteFile(DefaultIndexPath(csv), []byte("id,name\nsomething else\n"), 0o644)
	if _, err := Open(csv, nil); !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotIndex) {
		t.Errorf("Open of a foreign file = %v", err)
	}
	res, err := Verify(context.Background(), csv, nil)
	if err != nil || res.Equal {
		t.Errorf("Verify of a foreign file = %+v, %v; want a difference", res, err)
	}
}

// TestBuildKeepsOldIndexOnError: a build that fails leaves the previous
// index as it was.
func TestBuildKeepsOldIndexOnError(t *testing.T) {
	p := writeCSV(t, "id,user\n1,u1\n")
	build(t, p, &BuildOptions{Key: "user"})
	before, _ := os.ReadFile(DefaultIndexPath(p))
	if _, err := Build(context.Background(), p, &BuildOptions{Key: "nope"}); err == nil {
		t.Fatal("build with a bad key succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, p, &BuildOptions{Key: "id"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build = %v", err)
	}
	after, _ := os.ReadFile(DefaultIndexPath(p))
	if string(before) != string(after) {
		t.Fatal("a failed build changed the index")
	}
	checkOnlyFiles(t, p)
}
