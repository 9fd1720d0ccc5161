package multifile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// genParts writes n CSV files of one header into dir, in the ways files
// come: quoted fields with commas, quotes and line breaks, rows with CRLF,
// a last row with no newline, a file of the header alone, an empty file;
// and returns their paths and their concatenation as a build reads it
// (the first whole, each other without its header, a newline after one
// that lacks it).
func genParts(t *testing.T, dir string, n int, seed uint64) ([]string, []byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	header := "id,user,note\n"
	var names []string
	var concat bytes.Buffer
	row := 0
	for i := range n {
		var b bytes.Buffer
		if i%9 != 4 { // an empty file now and then
			b.WriteString(header)
		}
		rows := r.IntN(60)
		if i%9 == 4 || i%11 == 7 {
			rows = 0
		}
		for range rows {
			row++
			user := fmt.Sprintf("u%d", r.IntN(40))
			if r.IntN(10) == 0 {
				user = `"` + user + `"`
			}
			note := "plain"
			switch r.IntN(6) {
			case 0:
				note = `"a, b ""quoted"""`
			case 1:
				note = "\"two\nlines\""
			case 2:
				note = ""
			}
			end := "\n"
			if r.IntN(8) == 0 {
				end = "\r\n"
			}
			fmt.Fprintf(&b, "%d,%s,%s%s", row, user, note, end)
		}
		data := b.Bytes()
		if rows > 0 && r.IntN(3) == 0 {
			data = bytes.TrimRight(data, "\r\n") // no newline at its end
		}
		name := filepath.Join(dir, fmt.Sprintf("part-%03d.csv", i))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		if concat.Len() == 0 {
			concat.Write(data)
		} else if len(data) > 0 {
			concat.Write(data[len(header):])
		}
		if c := concat.Bytes(); len(c) > 0 && c[len(c)-1] != '\n' {
			concat.WriteByte('\n')
		}
	}
	return names, concat.Bytes()
}

// indexOfOne writes data as one CSV file, builds its index by user, and
// returns the index, open (closed when the test ends), and the file's
// path.
func indexOfOne(t *testing.T, data []byte) (*index.Index, string) {
	t.Helper()
	one := filepath.Join(t.TempDir(), "all.csv")
	if err := os.WriteFile(one, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), one, &index.BuildOptions{Key: "user"}); err != nil {
		t.Fatal(err)
	}
	x, err := index.Open(one, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, one
}

// TestBuildGet: an index over many files (built from a glob) answers every
// key, and keys that are not there, byte for byte as the index of one
// file holding their concatenation does, in one lookup of many keys too;
// each row is where its Row says, in the part it names; Count agrees.
func TestBuildGet(t *testing.T) {
	dir := t.TempDir()
	names, concat := genParts(t, dir, 25, 1)
	want, _ := indexOfOne(t, concat)
	ctx := context.Background()
	expanded, err := Expand([]string{filepath.Join(dir, "part-*.csv")})
	if err != nil || len(expanded) != len(names) {
		t.Fatalf("Expand: %d files, %v", len(expanded), err)
	}
	manifest := filepath.Join(t.TempDir(), "all.idx")
	m, info, err := Build(ctx, expanded, manifest, &index.BuildOptions{Key: "user"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Size != int64(len(concat)) || info.Rows != want.Info().Rows {
		t.Fatalf("the manifest's concatenation: %d bytes, %d rows; want %d bytes, %d rows", m.Size, info.Rows, len(concat), want.Info().Rows)
	}
	x, err := Open(manifest)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var keys [][]byte
	for u := range 45 { // u40..u44 are in no file
		keys = append(keys, []byte(fmt.Sprintf("u%d", u)))
	}
	get := func(keys [][]byte) (string, string) {
		var a, b strings.Builder
		if err := want.Get(keys, func(row []byte) error { a.Write(row); return nil }); err != nil {
			t.Fatal(err)
		}
		err := x.Each(keys, func(r Row) error {
			b.Write(r.Bytes)
			data, err := os.ReadFile(r.Path)
			if err != nil {
				return err
			}
			row := bytes.TrimRight(r.Bytes, "\r\n")
			if r.Path != names[r.Part] || int(r.At)+len(row) > len(data) || !bytes.Equal(data[r.At:int(r.At)+len(row)], row) {
				return fmt.Errorf("the row %q is not at %d of %s (part %d)", r.Bytes, r.At, r.Path, r.Part)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return a.String(), b.String()
	}
	for _, k := range keys {
		if a, b := get([][]byte{k}); a != b {
			t.Errorf("key %s: %q, want %q", k, b, a)
		}
		wn, err1 := want.Count(k)
		gn, err2 := x.Count(k)
		if err1 != nil || err2 != nil || wn != gn {
			t.Errorf("Count(%s) = %d, %v; want %d, %v", k, gn, err2, wn, err1)
		}
	}
	if a, b := get(keys); a != b {
		t.Errorf("all keys at once: %d bytes, want %d", len(b), len(a))
	}
	if h, err := x.Header(); string(h) != "id,user,note\n" || err != nil {
		t.Errorf("Header() = %q, %v", h, err)
	}
}

// TestRebuild: a build again replaces the manifest, and the index files
// of the run it replaced are removed; a file that is not a manifest is
// never replaced.
func TestRebuild(t *testing.T) {
	dir := t.TempDir()
	names, _ := genParts(t, dir, 5, 2)
	manifest := filepath.Join(dir, "m.idx")
	ctx := context.Background()
	first, _, err := Build(ctx, names, manifest, &index.BuildOptions{Key: "user"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := Build(ctx, names, manifest, &index.BuildOptions{Key: "id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{first.Partitions[0], first.PartsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the first run's %s is still there (%v)", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, second.Partitions[0])); err != nil {
		t.Errorf("the second run's index file: %v", err)
	}
	if m, err := ReadManifest(manifest); err != nil || m.Run != second.Run || m.Key != "id" {
		t.Errorf("the manifest after the second build: %+v, %v", m, err)
	}
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("mine"), 0o644)
	if _, _, err := Build(ctx, names, other, &index.BuildOptions{Key: "user"}, nil); err == nil || !strings.Contains(err.Error(), "not a csvidx manifest") {
		t.Errorf("a build over a file that is not a manifest: %v", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "mine" {
		t.Errorf("the file that is not a manifest was changed: %q", b)
	}
	if !IsManifest(manifest) || IsManifest(other) || IsManifest(names[0]) {
		t.Errorf("IsManifest: %v, %v, %v", IsManifest(manifest), IsManifest(other), IsManifest(names[0]))
	}
}

// TestBadParts: files of another header, or of none, a pattern that
// matches nothing and a file named twice are errors that name the file;
// a part changed after the build is the stale-index error when a lookup
// reads it, and the other parts still answer.
func TestBadParts(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	os.WriteFile(a, []byte("id,user\n1,u1\n2,u2\n"), 0o644)
	os.WriteFile(b, []byte("id,name\n3,u3\n"), 0o644)
	ctx := context.Background()
	manifest := filepath.Join(dir, "m.idx")
	if _, _, err := Build(ctx, []string{a, b}, manifest, &index.BuildOptions{Key: "user"}, nil); err == nil || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), "header differs") {
		t.Errorf("another header: %v", err)
	}
	if _, err := Expand([]string{filepath.Join(dir, "*.tsv")}); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("a pattern that matches nothing: %v", err)
	}
	if _, err := Expand([]string{a, filepath.Join(dir, "*.csv")}); err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("a file named twice: %v", err)
	}
	os.WriteFile(b, []byte("\xef\xbb\xbfid,user\n3,u3\n4,u1\n"), 0o644) // the same header after a byte order mark
	if _, _, err := Build(ctx, []string{a, b}, manifest, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatalf("the same header after a BOM: %v", err)
	}
	x, err := Open(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := x.Get([][]byte{[]byte("u1")}, func(row []byte) error { got = append(got, string(row)); return nil }); err != nil || strings.Join(got, "") != "1,u1\n4,u1\n" {
		t.Errorf("u1 across the files: %q, %v", got, err)
	}
	x.Close()
	os.WriteFile(b, []byte("\xef\xbb\xbfid,user\n3,u3\n4,u9\n"), 0o644) // the same size, other bytes
	x, err = Open(manifest)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Get([][]byte{[]byte("u1")}, func([]byte) error { return nil }); !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), b) {
		t.Errorf("a part changed: %v, want ErrStale naming it", err)
	}
}
