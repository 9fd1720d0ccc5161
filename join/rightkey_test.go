package join

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// TestRightKeyNoIndex: when RIGHT has no index by the join's key, New
// returns a *NoIndexError whose NoColumn, Column, Header and Delimiter
// come from RIGHT's header, read in the dialect of RIGHT's index when it
// has one (else as a build reads it by default), and whose message says
// why no index can be built when none can.
func TestRightKeyNoIndex(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	uid := write("uid.csv", "uid,name\n1,a\n")
	uidIndexed := write("uid-indexed.csv", "uid,name\n1,a\n")
	build(t, uidIndexed, &index.BuildOptions{Key: "uid"})
	headerless := write("headerless.csv", "1,a\n2,b\n")
	build(t, headerless, &index.BuildOptions{Key: "0", NoHeader: true})
	semiIndexed := write("semi-indexed.csv", "uid;name\n1;a\n")
	build(t, semiIndexed, &index.BuildOptions{Key: "uid", Delimiter: ';'})
	semi := write("semi.csv", "user_id;name\n1;a\n")
	plain := write("plain.csv", "user_id,name\n1,a\n")
	tsv := write("r.tsv", "uid\tname\n1\ta\n")
	empty := write("empty.csv", "")

	const uidHeader = `2 columns: "uid", "name"`
	cases := []struct {
		name     string
		right    string
		rightKey string
		want     NoIndexError // but Right and Err
		msg      string       // after "RIGHT has no index by KEY, which the join needs"
	}{
		// The key's column is not in RIGHT's header: no index by it can be
		// built, with an index by another column or none.
		{"no such column", uid, "", NoIndexError{Key: "user_id", NoColumn: true, Column: "user_id", Header: uidHeader},
			`, and its header has no such column "user_id" (it has 2 columns: "uid", "name")`},
		{"no such column, indexed by another", uidIndexed, "", NoIndexError{Key: "user_id", NoColumn: true, Column: "user_id", Header: uidHeader},
			`, and its header has no such column "user_id" (it has 2 columns: "uid", "name")`},
		// Column is the first of a composite key's columns that is missing.
		{"composite", uidIndexed, "name,uid2,x", NoIndexError{Key: "name,uid2,x", NoColumn: true, Column: "uid2", Header: uidHeader},
			`, and its header has no such column "uid2" (it has 2 columns: "uid", "name")`},
		// A .tsv RIGHT is read with tabs.
		{"tsv", tsv, "", NoIndexError{Key: "user_id", NoColumn: true, Column: "user_id", Header: uidHeader},
			`, and its header has no such column "user_id" (it has 2 columns: "uid", "name")`},
		// RIGHT's index says it is separated by ';': its header is read so.
		{"indexed with ';'", semiIndexed, "", NoIndexError{Key: "user_id", NoColumn: true, Column: "user_id", Header: uidHeader},
			`, and its header has no such column "user_id" (it has 2 columns: "uid", "name")`},
		// RIGHT's index says it has no header: no name can be found.
		{"no header", headerless, "", NoIndexError{Key: "user_id", NoColumn: true, Column: "user_id"},
			`, and it has no header to find the column "user_id" in`},
		// A column number is a column of a headerless RIGHT: a build works.
		{"no header, by number", headerless, "1", NoIndexError{Key: "1"}, ""},
		// One column holding ';': the build needs that delimiter.
		{"semicolons", semi, "", NoIndexError{Key: "user_id", Header: `1 column: "user_id;name"`, Delimiter: ';'}, ""},
		// The column is there: a build by it is the fix.
		{"plain", plain, "", NoIndexError{Key: "user_id", Header: `2 columns: "user_id", "name"`}, ""},
		// An empty RIGHT has no header either.
		{"empty", empty, "", NoIndexError{Key: "user_id", NoColumn: true, Column: "user_id"},
			`, and it has no header to find the column "user_id" in`},
	}
	for _, c := range cases {
		_, err := New(strings.NewReader("user_id\n1\n"), c.right, &Options{Key: "user_id", RightKey: c.rightKey})
		var e *NoIndexError
		if !errors.As(err, &e) {
			t.Errorf("%s: New = %v, want a *NoIndexError", c.name, err)
			continue
		}
		if !errors.Is(err, index.ErrNoIndex) && !errors.Is(err, index.ErrColumn) {
			t.Errorf("%s: %v wraps neither index.ErrNoIndex nor index.ErrColumn", c.name, err)
		}
		if e.Right != c.right || e.Err == nil {
			t.Errorf("%s: Right %q, Err %v; want %q and Open's error", c.name, e.Right, e.Err, c.right)
		}
		got := *e
		got.Right, got.Err = "", nil
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
		if want := c.right + " has no index by " + c.want.Key + ", which the join needs" + c.msg; err.Error() != want {
			t.Errorf("%s: %q, want %q", c.name, err.Error(), want)
		}
	}
}

// TestRightKeyNamedIndex: with RightIndex, a missing index is Open's
// error as it is, not a *NoIndexError: the index was named, no key picks it.
func TestRightKeyNamedIndex(t *testing.T) {
	rp := writeCSV(t, "user_id,name\n1,a\n")
	_, err := New(strings.NewReader("user_id\n1\n"), rp, &Options{Key: "user_id", RightIndex: rp + ".nope"})
	var e *NoIndexError
	if err == nil || errors.As(err, &e) || !errors.Is(err, index.ErrNoIndex) {
		t.Fatalf("New with a missing RightIndex = %v, want index.ErrNoIndex, not a *NoIndexError", err)
	}
}

// TestRightKeyErrorText: the message of each kind of NoIndexError, and its
// Unwrap.
func TestRightKeyErrorText(t *testing.T) {
	inner := errors.New("open's error")
	for _, c := range []struct {
		e    NoIndexError
		want string
	}{
		{NoIndexError{Right: "u.csv", Key: "k"}, "u.csv has no index by k, which the join needs"},
		{NoIndexError{Right: "u.csv", Key: "k", Delimiter: ';', Header: `1 column: "k;v"`}, "u.csv has no index by k, which the join needs"},
		{NoIndexError{Right: "u.csv", Key: "k,j", NoColumn: true, Column: "j", Header: `1 column: "k"`},
			`u.csv has no index by k,j, which the join needs, and its header has no such column "j" (it has 1 column: "k")`},
		{NoIndexError{Right: "u.csv", Key: "k", NoColumn: true, Column: "k"},
			`u.csv has no index by k, which the join needs, and it has no header to find the column "k" in`},
	} {
		c.e.Err = inner
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
		if !errors.Is(&c.e, inner) {
			t.Errorf("%+v does not unwrap to its Err", c.e)
		}
	}
}
