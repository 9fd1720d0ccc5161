package multifile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTable: a parts table gives back every part, with where it starts,
// finds the part of any offset of the concatenation, refuses a table that
// is not the manifest's (another count or size, another file), and a
// damaged entry is an error for that entry alone.
func TestTable(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	var parts []Part
	size := int64(0)
	for i := range 3000 {
		p := Part{Path: fmt.Sprintf("d%d/part-%05d.csv", i%7, i), Size: r.Int64N(5000), Newline: r.IntN(3) == 0}
		if p.Size > 0 {
			p.Skip = r.Int64N(min(p.Size, 40) + 1)
			p.Head, p.Tail = fmt.Sprintf("%016x", r.Uint64()), fmt.Sprintf("%016x", r.Uint64())
		}
		parts = append(parts, p)
		size += partLen(p)
	}
	path := filepath.Join(t.TempDir(), "m.idx.run.parts")
	if err := writeTable(path, parts); err != nil {
		t.Fatal(err)
	}
	tb, err := openTable(path, len(parts), size)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close()
	want, err := newSliceList(parts)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		got, base, err := tb.entry(i)
		_, wantBase, _ := want.part(i)
		if err != nil || got != p || base != wantBase {
			t.Fatalf("part %d: %+v at %d, %v; want %+v at %d", i, got, base, err, p, wantBase)
		}
	}
	for range 2000 {
		off := r.Int64N(size)
		a, err1 := tb.find(off)
		b, _ := want.find(off)
		if err1 != nil || a != b {
			t.Fatalf("find(%d) = %d, %v; want %d", off, a, err1, b)
		}
	}
	for _, c := range []struct {
		n    int
		size int64
	}{{len(parts) - 1, size}, {len(parts), size + 1}} {
		if _, err := openTable(path, c.n, c.size); err == nil || !strings.Contains(err.Error(), "damaged parts table") {
			t.Errorf("a table opened for %d parts of %d bytes: %v", c.n, c.size, err)
		}
	}
	b, _ := os.ReadFile(path)
	b[tableHeader+17*entrySize+9] ^= 1 // part 17's size
	os.WriteFile(path, b, 0o644)
	tb2, err := openTable(path, len(parts), size)
	if err != nil {
		t.Fatal(err)
	}
	defer tb2.close()
	if _, _, err := tb2.entry(17); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged entry: %v", err)
	}
	if p, _, err := tb2.entry(18); err != nil || p != parts[18] {
		t.Errorf("the entry after a damaged one: %+v, %v", p, err)
	}
}

// TestResolve: a relative path is joined to a URL's directory as text (an
// s3 key as written, an http path as escaped), ../ climbs within it and
// no further, and a query's slashes make no directory.
func TestResolve(t *testing.T) {
	for _, c := range []struct{ dir, p, want string }{
		{"s3://bucket/data", "Orders 2026.csv", "s3://bucket/data/Orders 2026.csv"},
		{"s3://bucket/data", "café.csv", "s3://bucket/data/café.csv"},
		{"https://h:8080/d", "my%20file.csv", "https://h:8080/d/my%20file.csv"},
		{"s3://bucket/a/b", "../c/x.csv", "s3://bucket/a/c/x.csv"},
		{"s3://bucket/a", "../x.csv", "s3://bucket/x.csv"},
		{"s3://bucket/a", "../../x.csv", "s3://bucket/a/../../x.csv"},
		{"s3://bucket", "x.csv", "s3://bucket/x.csv"},
		{"s3://bucket/a", "https://other/x.csv", "https://other/x.csv"},
		{"/local/dir", "x.csv", "/local/dir/x.csv"},
	} {
		if got := resolve(c.dir, c.p); got != c.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", c.dir, c.p, got, c.want)
		}
	}
	if got := dirOf("https://h/d/m.idx?X-Amz-Credential=AK/2026/us/s3/aws4_request"); got != "https://h/d" {
		t.Errorf("dirOf of a URL with a query: %q", got)
	}
}
