package index

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestStale(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, p string, size int64)
		want string
	}{
		{"Shrunk", func(t *testing.T, p string, size int64) { os.Truncate(p, size-1) }, "shrank from"},
		{"EditedStart", func(t *testing.T, p string, size int64) { editAt(t, p, 3, 'Z') }, "first 65536 bytes"},
		{"EditedEnd", func(t *testing.T, p string, size int64) { editAt(t, p, size-3, 'Z') }, "last 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, p := bigCSV(t)
			tc.edit(t, p, int64(len(g.data)))
			_, err := Open(p, nil)
			var re *RebuildError
			if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &re) || re.Built == nil {
				t.Fatalf("Open = %v, want a stale error saying %q, with how the index was built", err, tc.want)
			}
			info, err := ReadInfo(p, nil)
			if err != nil || info.Stale == "" {
				t.Fatalf("ReadInfo = %+v, %v; want the staleness reported", info, err)
			}
			res, err := Verify(context.Background(), p, nil)
			if err != nil || res.Equal {
				t.Fatalf("Verify = %+v, %v; want a difference", res, err)
			}
		})
	}
}

// TestEditedMiddle shows the limit of the freshness check: an edit of the
// same size between the fingerprinted ends is not seen by Open. A lookup of
// the old key reaches the edited row and refuses it (stale); a lookup of the
// new key cannot know the row (the index never saw it); Verify catches it.
func TestEditedMiddle(t *testing.T) {
	g, p := bigCSV(t)
	var edited *genRow
	for i := len(g.rows) / 2; i < len(g.rows); i++ {
		if r := &g.rows[i]; strings.HasPrefix(r.text, "x,u1,") {
			edited = r
			break
		}
	}
	if edited == nil {
		t.Fatal("no plainly written u1 row in the second half")
	}
	editAt(t, p, int64(edited.off+len("x,u")), '9') // u1 becomes u9
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatalf("Open after an edit in the middle: %v", err)
	}
	err = ix.Lookup([]byte("u1"), func([]byte) error { return nil })
	if !errors.Is(err, ErrStale) {
		t.Fatalf("Lookup(u1) after renaming one of its rows' key = %v, want ErrStale", err)
	}
	got := get(t, ix, "u9")
	ix.Close()
	edited.key = "u1" // the index knows the row as u1's
	if want := g.want("u9"); got != want {
		t.Fatalf("Get(u9) after renaming a row to u9 =\n%q\nwant the rows indexed as u9\n%q", got, want)
	}
	res, err := Verify(context.Background(), p, nil)
	if err != nil || res.Equal {
		t.Fatalf("Verify = %+v, %v; want a difference", res, err)
	}
}

// TestAppended: rows appended after the build are not indexed; the index
// still answers for the rows it covers and says how far behind it is.
func TestAppended(t *testing.T) {
	g, p := bigCSV(t)
	extra := "1,u1,appended\n2,new,appended\n"
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(extra)
	f.Close()
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n := ix.BytesBehind(); n != int64(len(extra)) {
		t.Fatalf("BytesBehind = %d, want %d", n, len(extra))
	}
	if got, want := get(t, ix, "u1"), g.want("u1"); got != want {
		t.Fatalf("Get(u1) after an append differs from the indexed rows")
	}
	res, err := Verify(context.Background(), p, nil)
	if err != nil || !res.Equal || res.BytesBehind != int64(len(extra)) {
		t.Fatalf("Verify = %+v, %v; want equal, %d bytes behind", res, err, len(extra))
	}
}

// TestCSVTruncatedWhileOpen cuts the CSV under an open index's mapping:
// reading the lost pages faults, which must become ErrChanged, not a crash.
func TestCSVTruncatedWhileOpen(t *testing.T) {
	_, p := bigCSV(t)
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	err = ix.Lookup([]byte("u1"), func([]byte) error { return nil })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("Lookup on a truncated CSV = %v, want ErrChanged", err)
	}
	if err := ix.Check(); !errors.Is(err, ErrChanged) {
		t.Fatalf("Check = %v, want ErrChanged", err)
	}
}
