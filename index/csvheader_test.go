package index

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadCSVHeader: a CSV's header as csvidx reads it: by default with a
// header, and commas, or tabs for a .tsv; in the dialect of the CSV's
// index when it has one, which may say there is no header; decoded, after
// a byte order mark; an empty CSV has none.
func TestReadCSVHeader(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		build      *BuildOptions // nil: no index
		fields     []string      // nil: no header found
		delim      byte
	}{
		{"a.csv", "id,user\n1,a\n", nil, []string{"id", "user"}, ','},
		{"tabs.csv", "id\tuser\n1\ta\n", nil, []string{"id\tuser"}, ','},
		{"a.tsv", "id\tuser\n1\ta\n", nil, []string{"id", "user"}, '\t'},
		{"a.tab", "id\tuser\n1\ta\n", nil, []string{"id", "user"}, '\t'},
		{"quoted.csv", "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n1,2,3\n", nil, []string{"a,b", `say "hi"`, "two\nlines"}, ','},
		{"bom.csv", "\xef\xbb\xbfid,user\n", nil, []string{"id", "user"}, ','},
		{"noterm.csv", "id,user", nil, []string{"id", "user"}, ','},
		{"blank.csv", "\n\nid,user\n1,a\n", nil, []string{"id", "user"}, ','},
		{"empty.csv", "", nil, nil, ','},
		{"semi.csv", "id;user\n1;a\n", &BuildOptions{Key: "user", Delimiter: ';'}, []string{"id", "user"}, ';'},
		{"nohdr.csv", "id;user\n1;a\n", &BuildOptions{Key: "1", Delimiter: ';', NoHeader: true}, nil, ';'},
		{"commas.tsv", "id,user\n1,a\n", &BuildOptions{Key: "user", Delimiter: ','}, []string{"id", "user"}, ','},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if c.build != nil {
			build(t, p, c.build)
		}
		hd, err := ReadCSVHeader(p)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, f := range hd.Fields {
			got = append(got, string(f))
		}
		if hd.Found != (c.fields != nil) || !slices.Equal(got, c.fields) || hd.Delim != c.delim {
			t.Errorf("%s: %+v (fields %q), want fields %q, delimiter %q", c.name, *hd, got, c.fields, c.delim)
		}
	}
}

// TestReadCSVHeaderIndexes: of several indexes the first readable one
// gives the dialect; an index that cannot be read is passed over.
func TestReadCSVHeaderIndexes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(p, []byte("id;user\n1;a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An index file of junk where the default index goes: no dialect from it.
	if err := os.WriteFile(p+".csvidx", bytes.Repeat([]byte("junk"), 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	hd, err := ReadCSVHeader(p)
	if err != nil || !hd.Found || hd.Delim != ',' || len(hd.Fields) != 1 || string(hd.Fields[0]) != "id;user" {
		t.Fatalf("with a junk index: %+v, %v; want the default dialect", hd, err)
	}
	// A readable index besides it, at a by- name, in ';': its dialect.
	build(t, p, &BuildOptions{Key: "id", Delimiter: ';', IndexPath: p + ".by-0.csvidx"})
	if hd, err = ReadCSVHeader(p); err != nil || hd.Delim != ';' || len(hd.Fields) != 2 {
		t.Fatalf("a by- index next to a junk default one: %+v, %v; want its dialect", hd, err)
	}
}

// TestReadCSVHeaderMissing: a CSV that is not there is an error.
func TestReadCSVHeaderMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing.csv")
	if hd, err := ReadCSVHeader(p); !errors.Is(err, fs.ErrNotExist) || hd != nil {
		t.Fatalf("ReadCSVHeader(a missing file) = %+v, %v; want fs.ErrNotExist", hd, err)
	}
	if _, err := ReadCSVHeader(t.TempDir()); err == nil {
		t.Fatal("ReadCSVHeader(a directory) succeeded")
	}
}

// TestReadCSVHeaderCloned: the fields are copies, not views of the
// mapping: still what the header held once the file is rewritten, cut
// short and unmapped.
func TestReadCSVHeaderCloned(t *testing.T) {
	p := writeCSV(t, "id,user,note\n1,a,x\n")
	hd, err := ReadCSVHeader(p)
	if err != nil {
		t.Fatal(err)
	}
	editAt(t, p, 0, 'X')
	editAt(t, p, 4, 'Y')
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	if got := bytes.Join(hd.Fields, []byte("|")); string(got) != "id|user|note" {
		t.Fatalf("fields after the file changed: %q", got)
	}
	// Each field is a slice of its own: appending to one spills into no
	// other.
	hd.Fields[0] = append(hd.Fields[0], "zzzz"...)
	if string(hd.Fields[1]) != "user" {
		t.Fatalf("fields share their bytes: %q", hd.Fields)
	}
}
