package index

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/scan"
)

// rowsCSV is a small CSV with what a lookup's spans must get right: a
// field over two lines, a CRLF row, a blank line, a quoted key, a short
// row, an empty key, repeated keys and an unterminated last row.
const rowsCSV = "id,user,note\n" +
	"1,ann,plain\n" +
	"2,bob,\"multi\nline\"\n" +
	"3,ann,\"quoted, comma\"\r\n" +
	"\n" +
	"4,\"ann\",q\n" +
	"5,cy\n" +
	"6\n" +
	"7,bob,x\n" +
	"9,,empty\n" +
	"8,ann,last"

// openIndex opens the index of the CSV at p, closed when the test ends.
func openIndex(t *testing.T, p string, opts *Options) *Index {
	t.Helper()
	ix, err := Open(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// eachSpans returns the spans Rows.Each gives for key, read inside Guard,
// and checks each: within what the index covers, in file order, a whole
// record that ends with its terminator when it has one, and whose key,
// read by Scan from its start, is key.
func eachSpans(t *testing.T, ix *Index, r *Rows, key []byte) []Span {
	t.Helper()
	var spans []Span
	err := ix.Guard(func() error {
		data := ix.Data()
		return r.Each(key, func(sp Span) error {
			if sp.Start < 0 || sp.Start >= sp.End || sp.End > ix.Covered() || ix.Covered() > len(data) {
				t.Errorf("Each(%q): span %+v outside [0, %d) of %d bytes", key, sp, ix.Covered(), len(data))
				return nil
			}
			if n := len(spans); n > 0 && spans[n-1].End > sp.Start {
				t.Errorf("Each(%q): span %+v after %+v", key, sp, spans[n-1])
			}
			if sp.Terminated != (data[sp.End-1] == '\n') {
				t.Errorf("Each(%q): span %+v ends with %q", key, sp, data[sp.End-1])
			}
			s, err := ix.Scan(sp.Start)
			if err != nil {
				return err
			}
			if !s.Next() || s.Start() != sp.Start || s.End() != sp.End || s.Terminated() != sp.Terminated {
				t.Errorf("Each(%q): span %+v; a scan from its start reads [%d, %d)", key, sp, s.Start(), s.End())
			} else if k, has := s.Key(); !has || !bytes.Equal(k, key) {
				t.Errorf("Each(%q): span %+v holds the key %q (%v)", key, sp, k, has)
			}
			spans = append(spans, sp)
			return nil
		})
	})
	if err != nil {
		t.Fatalf("Each(%q): %v", key, err)
	}
	return spans
}

// rowsOf returns the rows of spans as Get gives them: a '\n' after an
// unterminated one.
func rowsOf(ix *Index, spans []Span) string {
	var b strings.Builder
	ix.Guard(func() error {
		for _, sp := range spans {
			b.Write(ix.Data()[sp.Start:sp.End])
			if !sp.Terminated {
				b.WriteByte('\n')
			}
		}
		return nil
	})
	return b.String()
}

// TestRowsEach: Rows.Each finds the rows Get finds, in the same order, as
// spans of Data that end at their terminators; for a key of one column and
// a composite one, an absent key, and after an append indexed by Update,
// the tail's rows too.
func TestRowsEach(t *testing.T) {
	p := writeCSV(t, rowsCSV)
	build(t, p, &BuildOptions{Key: "user"})
	ix := openIndex(t, p, nil)
	r, err := ix.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ann": "1,ann,plain\n3,ann,\"quoted, comma\"\r\n4,\"ann\",q\n8,ann,last\n",
		"bob": "2,bob,\"multi\nline\"\n7,bob,x\n",
		"cy":  "5,cy\n",
		"":    "9,,empty\n",
		"zed": "",
		"6":   "",
	}
	for key, rows := range want {
		spans := eachSpans(t, ix, r, []byte(key))
		if got := rowsOf(ix, spans); got != rows || got != get(t, ix, key) {
			t.Errorf("Each(%q) = %q; want %q, as Get gives %q", key, got, rows, get(t, ix, key))
		}
	}
	if spans := eachSpans(t, ix, r, []byte("ann")); spans[len(spans)-1].Terminated || spans[len(spans)-1].End != len(rowsCSV) {
		t.Errorf("the last row's span %+v: want it unterminated, ending at %d", spans[len(spans)-1], len(rowsCSV))
	}

	// An error from fn stops Each, and is its error.
	stop := errors.New("stop")
	calls := 0
	err = ix.Guard(func() error { return r.Each([]byte("ann"), func(Span) error { calls++; return stop }) })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Each stopped by fn: %v after %d calls, want stop after 1", err, calls)
	}

	// Several handles, one per goroutine, give the same rows.
	done := make(chan string, 4)
	for range cap(done) {
		go func() {
			r, err := ix.Rows()
			if err != nil {
				done <- err.Error()
				return
			}
			var b strings.Builder
			for range 200 {
				b.Reset()
				ix.Guard(func() error {
					return r.Each([]byte("bob"), func(sp Span) error { b.Write(ix.Data()[sp.Start:sp.End]); return nil })
				})
			}
			done <- b.String()
		}()
	}
	for range cap(done) {
		if got := <-done; got != want["bob"] {
			t.Errorf("Each(bob) on a goroutine of its own: %q", got)
		}
	}

	// The tail: rows appended (the last one completed) and indexed by an
	// update, found after the main index's, as Get finds them.
	appendCSV(t, p, "\n10,bob,tail\n11,ann,t2\n")
	if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	ix2 := openIndex(t, p, nil)
	if ix2.tail == nil {
		t.Fatal("no tail after the update")
	}
	r2, err := ix2.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for key, rows := range map[string]string{
		"ann": "1,ann,plain\n3,ann,\"quoted, comma\"\r\n4,\"ann\",q\n8,ann,last\n11,ann,t2\n",
		"bob": "2,bob,\"multi\nline\"\n7,bob,x\n10,bob,tail\n",
		"zed": "",
	} {
		if got := rowsOf(ix2, eachSpans(t, ix2, r2, []byte(key))); got != rows || got != get(t, ix2, key) {
			t.Errorf("with a tail, Each(%q) = %q; want %q, as Get gives %q", key, got, rows, get(t, ix2, key))
		}
	}
}

// TestRowsEachComposite: a composite key's rows, by the key CompositeKey
// makes, are those Get finds.
func TestRowsEachComposite(t *testing.T) {
	p := writeCSV(t, rowsCSV+"\n10,ann,1\n")
	build(t, p, &BuildOptions{Key: "user,id"})
	ix := openIndex(t, p, nil)
	r, err := ix.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ user, id, want string }{
		{"ann", "1", "1,ann,plain\n"},
		{"ann", "4", "4,\"ann\",q\n"},
		{"ann", "8", "8,ann,last\n"},
		{"bob", "2", "2,bob,\"multi\nline\"\n"},
		{"ann", "10", "10,ann,1\n"},
		{"1", "ann", ""},
		{"ann", "2", ""},
	} {
		key, err := ix.CompositeKey([]byte(c.user), []byte(c.id))
		if err != nil {
			t.Fatal(err)
		}
		got := rowsOf(ix, eachSpans(t, ix, r, key))
		var b bytes.Buffer
		if err := ix.Get([][]byte{key}, func(row []byte) error { b.Write(row); return nil }); err != nil {
			t.Fatal(err)
		}
		if got != c.want || got != b.String() {
			t.Errorf("Each(%s,%s) = %q; want %q, as Get gives %q", c.user, c.id, got, c.want, b.String())
		}
	}
}

// TestRowsEachGenerated: over a generated CSV of every way to write a
// field, Each gives for every nasty key the rows the generator wrote.
func TestRowsEachGenerated(t *testing.T) {
	g := makeCSV(rand.New(rand.NewPCG(39, 1)), 3000, 1, ',', true, true)
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	ix := openIndex(t, p, nil)
	r, err := ix.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range append(nastyKeys, "missing") {
		if got, want := rowsOf(ix, eachSpans(t, ix, r, []byte(k))), g.want(k); got != want {
			t.Errorf("Each(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestRowsCovered: Covered is the bytes the index covers: the CSV's size
// when built, the same when rows were appended since, and the new size
// once an update indexed them. Data is the CSV as mapped when opened.
func TestRowsCovered(t *testing.T) {
	p := writeCSV(t, rowsCSV)
	info := build(t, p, &BuildOptions{Key: "user"})
	ix := openIndex(t, p, nil)
	if ix.Covered() != len(rowsCSV) || int64(ix.Covered()) != info.ScannedBytes {
		t.Fatalf("Covered = %d, want %d (scanned %d)", ix.Covered(), len(rowsCSV), info.ScannedBytes)
	}
	ix.Guard(func() error {
		if !bytes.Equal(ix.Data(), []byte(rowsCSV)) {
			t.Errorf("Data = %q, want the CSV", ix.Data())
		}
		return nil
	})
	appendCSV(t, p, "\n12,dee,x\n")
	ix2 := openIndex(t, p, nil)
	if ix2.Covered() != len(rowsCSV) || ix2.BytesBehind() != 10 {
		t.Fatalf("after an append: Covered = %d, %d bytes behind; want %d, 10", ix2.Covered(), ix2.BytesBehind(), len(rowsCSV))
	}
	if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	ix3 := openIndex(t, p, nil)
	if ix3.Covered() != len(rowsCSV)+10 {
		t.Fatalf("after an update: Covered = %d, want %d", ix3.Covered(), len(rowsCSV)+10)
	}
	// And after a compaction of the tail into the main index.
	if _, err := Update(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
	if ix4 := openIndex(t, p, nil); ix4.Covered() != len(rowsCSV)+10 {
		t.Fatalf("after a compaction: Covered = %d, want %d", ix4.Covered(), len(rowsCSV)+10)
	}
}

// TestRowsDialect: Delimiter and HeaderAt say how the CSV was read: with
// a header (after a byte order mark, when there is one), without one, and
// separated by tabs.
func TestRowsDialect(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		opts       BuildOptions
		delim      byte
		header     string // "" for none
		headerAt   int
	}{
		{"t.csv", "id,user\n1,a\n", BuildOptions{Key: "user"}, ',', "id,user\n", 0},
		{"crlf.csv", "id,user\r\n1,a\r\n", BuildOptions{Key: "user"}, ',', "id,user\r\n", 0},
		{"bom.csv", "\xef\xbb\xbfid,user\n1,a\n", BuildOptions{Key: "user"}, ',', "id,user\n", 3},
		{"blank.csv", "\n\nid,user\n1,a\n", BuildOptions{Key: "user"}, ',', "id,user\n", 2},
		{"nohdr.csv", "1,a\n2,b\n", BuildOptions{Key: "1", NoHeader: true}, ',', "", 0},
		{"t.tsv", "id\tuser\n1\ta\n", BuildOptions{Key: "user"}, '\t', "id\tuser\n", 0},
		{"semi.txt", "id;user\n1;a\n", BuildOptions{Key: "1", Delimiter: ';', NoHeader: true}, ';', "", 0},
		{"onlyhdr.csv", "id,user", BuildOptions{Key: "user"}, ',', "id,user", 0},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		build(t, p, &c.opts)
		ix := openIndex(t, p, nil)
		if ix.Delimiter() != c.delim {
			t.Errorf("%s: Delimiter %q, want %q", c.name, ix.Delimiter(), c.delim)
		}
		start, end, ok := ix.HeaderAt()
		switch {
		case ok != (c.header != ""):
			t.Errorf("%s: HeaderAt says a header: %v", c.name, ok)
		case !ok && (start != 0 || end != 0):
			t.Errorf("%s: no header, at [%d, %d)", c.name, start, end)
		case ok && (start != c.headerAt || c.data[start:end] != c.header):
			t.Errorf("%s: header at [%d, %d), %q; want %q at %d", c.name, start, end, c.data[start:end], c.header, c.headerAt)
		}
	}
}

// scanned is a record a scanner read.
type scanned struct {
	start, end int
	terminated bool
	key        string
	has        bool
}

// scanAll returns the records s reads.
func scanAll(s *scan.Scanner) []scanned {
	var recs []scanned
	for s.Next() {
		k, has := s.Key()
		recs = append(recs, scanned{s.Start(), s.End(), s.Terminated(), string(k), has})
	}
	return recs
}

// TestRowsScan: Scan(from) reads the records from a record's start to
// the end of what the index covers, with their keys, as a scanner of the
// CSV with the index's key and dialect reads them; rows appended since
// the build are not read.
func TestRowsScan(t *testing.T) {
	for _, c := range []struct {
		name string
		opts BuildOptions
		cols []int
	}{
		{"one column", BuildOptions{Key: "user"}, []int{1}},
		{"composite", BuildOptions{Key: "note,user"}, []int{2, 1}},
	} {
		p := writeCSV(t, rowsCSV)
		build(t, p, &c.opts)
		appendCSV(t, p, "\n12,dee,x\n") // not indexed
		ix := openIndex(t, p, nil)
		file, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: a scanner over the whole file.
		ref, err := scan.New(file, ',', c.cols[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(c.cols) > 1 {
			if err := ref.InitComposite(file, ',', c.cols); err != nil {
				t.Fatal(err)
			}
		}
		all := scanAll(ref)
		covered := slices.IndexFunc(all, func(r scanned) bool { return r.start >= ix.Covered() })
		if covered < 0 {
			t.Fatalf("%s: the reference scan read %+v", c.name, all)
		}
		for i, rec := range all[:covered] {
			var got []scanned
			err := ix.Guard(func() error {
				s, err := ix.Scan(rec.start)
				if err != nil {
					return err
				}
				got = scanAll(s)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := all[i:covered]; !slices.Equal(got, want) {
				t.Errorf("%s: Scan(%d) = %+v, want %+v", c.name, rec.start, got, want)
			}
		}
		// From the end of what is covered: nothing.
		ix.Guard(func() error {
			s, err := ix.Scan(ix.Covered())
			if err != nil {
				t.Fatal(err)
			}
			if got := scanAll(s); len(got) != 0 {
				t.Errorf("%s: Scan(Covered()) = %+v", c.name, got)
			}
			return nil
		})
	}
}

// TestRowsFileOf: FileOf knows the CSV and every file of its index, by
// path and through a hard or a symbolic link, and nothing else.
func TestRowsFileOf(t *testing.T) {
	p := writeCSV(t, rowsCSV)
	build(t, p, &BuildOptions{Key: "user"})
	appendCSV(t, p, "\n12,dee,x\n")
	if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, p, nil)
	if ix.CSVPath() != p || ix.IndexPath() != p+".csvidx" {
		t.Fatalf("CSVPath %q, IndexPath %q", ix.CSVPath(), ix.IndexPath())
	}
	ip := ix.IndexPath()
	dir := t.TempDir()
	for i, c := range []struct{ path, what string }{
		{p, "the CSV"},
		{ip, "index"},
		{ip + ".tail", "tail file"},
		{ip + ".fence", "fence file"},
		{ip + ".lock", "lock file"},
	} {
		hard := filepath.Join(dir, "hard"+string(rune('a'+i)))
		if err := os.Link(c.path, hard); err != nil {
			t.Fatal(err)
		}
		soft := filepath.Join(dir, "soft"+string(rune('a'+i)))
		if err := os.Symlink(c.path, soft); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		for _, q := range []string{c.path, hard, soft} {
			st, err := os.Stat(q)
			if err != nil {
				t.Fatal(err)
			}
			if path, what, ok := ix.FileOf(st); !ok || path != c.path || what != c.what {
				t.Errorf("FileOf(%s) = %q, %q, %v; want %q, %q", q, path, what, ok, c.path, c.what)
			}
		}
	}
	other := filepath.Join(dir, "copy.csv")
	if err := os.WriteFile(other, []byte(rowsCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{other, dir, filepath.Dir(p)} {
		st, err := os.Stat(q)
		if err != nil {
			t.Fatal(err)
		}
		if path, what, ok := ix.FileOf(st); ok {
			t.Errorf("FileOf(%s) = %q, %q, true; want false", q, path, what)
		}
	}
}

// TestRowsPages: Pages counts the 4 KiB pages of the covered CSV and of
// the index files.
func TestRowsPages(t *testing.T) {
	_, p := bigCSV(t)
	ix := openIndex(t, p, nil)
	size := func(p string) int {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return int(st.Size())
	}
	csvPages, idxPages := ix.Covered()/format.PageSize, size(ix.IndexPath())/format.PageSize
	if got := ix.Pages(); got <= 0 || got != csvPages+idxPages {
		t.Fatalf("Pages = %d, want %d + %d", got, csvPages, idxPages)
	}
	// Rows appended and indexed: the tail's pages and the new rows' count.
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("tail" + strings.Repeat("x", i%50) + ",u1,v\n")
	}
	appendCSV(t, p, b.String())
	if _, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	ix2 := openIndex(t, p, nil)
	want := ix2.Covered()/format.PageSize + size(ix2.IndexPath())/format.PageSize + size(ix2.IndexPath()+".tail")/format.PageSize
	if got := ix2.Pages(); got != want || got <= ix.Pages() {
		t.Fatalf("with a tail, Pages = %d, want %d (more than %d)", got, want, ix.Pages())
	}
	// A CSV of less than a page: its index's pages alone.
	sp := writeCSV(t, rowsCSV)
	build(t, sp, &BuildOptions{Key: "user"})
	if got, want := openIndex(t, sp, nil).Pages(), size(sp+".csvidx")/format.PageSize; got != want || got <= 0 {
		t.Fatalf("Pages of a CSV of %d bytes = %d, want %d", len(rowsCSV), got, want)
	}
}

// TestRowsReadAhead: ReadAhead returns at once, with its context
// cancelled or not, and lookups go on right; on Linux, with the files'
// pages evicted, it brings the covered part of the CSV into memory.
func TestRowsReadAhead(t *testing.T) {
	g, p := bigCSV(t)
	ix := openIndex(t, p, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix.csv.mapping().Evict(p) // so that there is something to read
	ix.ReadAhead(ctx)
	ix.ReadAhead(ctx)
	for _, k := range []string{"u1", "missing"} {
		if got := get(t, ix, k); got != g.want(k) {
			t.Fatalf("Get(%q) after ReadAhead with a cancelled context: %q", k, got)
		}
	}

	if err := ix.csv.mapping().Evict(p); err != nil {
		t.Logf("no eviction here (%v): ReadAhead only runs", err)
		ix.ReadAhead(context.Background())
		return
	}
	pages := (ix.Covered() + os.Getpagesize() - 1) / os.Getpagesize()
	if n, err := ix.csv.mapping().ResidentIn(ix.Covered()); err != nil || n > pages/2 {
		t.Logf("eviction left %d of %d pages in memory (%v): ReadAhead only runs", n, pages, err)
		ix.ReadAhead(context.Background())
		return
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	ix.ReadAhead(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := ix.csv.mapping().ResidentIn(ix.Covered())
		if err != nil {
			t.Fatal(err)
		}
		if n == pages {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ReadAhead: %d of %d pages in memory after 5 s", n, pages)
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, k := range []string{"u1", "missing"} {
		if got := get(t, ix, k); got != g.want(k) {
			t.Fatalf("Get(%q) after ReadAhead: %q", k, got)
		}
	}
}

// TestRowsDefinition: Definition is what Build was given, resolved.
func TestRowsDefinition(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		opts       BuildOptions
		want       Definition
	}{
		{"a.csv", "id,user\n1,a\n", BuildOptions{Key: "user"}, Definition{KeyColumn: 1, KeyName: "user", Delimiter: ','}},
		{"b.csv", "id,user\n1,a\n", BuildOptions{Key: "0"}, Definition{KeyColumn: 0, KeyName: "id", Delimiter: ','}},
		{"c.csv", "id,user,n\n1,a,2\n", BuildOptions{Key: "n,id"}, Definition{KeyColumn: 2, KeyColumns: []int{2, 0}, KeyName: "n,id", Delimiter: ','}},
		{"d.txt", "1;a;x\n", BuildOptions{Key: "2", NoHeader: true, Delimiter: ';'}, Definition{KeyColumn: 2, NoHeader: true, Delimiter: ';'}},
		{"e.tsv", "id\tuser\n1\ta\n", BuildOptions{Key: "user"}, Definition{KeyColumn: 1, KeyName: "user", Delimiter: '\t'}},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		info := build(t, p, &c.opts)
		ix := openIndex(t, p, nil)
		got := ix.Definition()
		if got.KeyColumn != c.want.KeyColumn || !slices.Equal(got.KeyColumns, c.want.KeyColumns) || got.KeyName != c.want.KeyName ||
			got.NoHeader != c.want.NoHeader || got.Delimiter != c.want.Delimiter {
			t.Errorf("%s: Definition %+v, want %+v", c.name, *got, c.want)
		}
		if ix.IndexPath() != info.IndexPath || ix.CSVPath() != p {
			t.Errorf("%s: IndexPath %q, CSVPath %q; want %q, %q", c.name, ix.IndexPath(), ix.CSVPath(), info.IndexPath, p)
		}
	}
}

// TestRowsGuard: Guard returns fn's error; and a read of Data, or a
// lookup by Each, on a CSV cut short under its mapping faults, which Guard
// turns into an error wrapping ErrChanged that names the CSV, instead of a
// crash.
func TestRowsGuard(t *testing.T) {
	_, p := bigCSV(t)
	ix := openIndex(t, p, nil)
	r, err := ix.Rows()
	if err != nil {
		t.Fatal(err)
	}
	mine := errors.New("fn's error")
	if err := ix.Guard(func() error { return mine }); err != mine {
		t.Fatalf("Guard(fn) = %v, want fn's error", err)
	}
	if err := ix.Guard(func() error { return nil }); err != nil {
		t.Fatalf("Guard(fn) = %v, want nil", err)
	}
	n := len(ix.Data())
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	var sink byte
	err = ix.Guard(func() error { sink += ix.Data()[n-1]; return nil })
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Guard over a read of a CSV cut short = %v, want ErrChanged naming %s", err, p)
	}
	err = ix.Guard(func() error { return r.Each([]byte("u1"), func(Span) error { return nil }) })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("Guard over Each on a CSV cut short = %v, want ErrChanged", err)
	}
	if _, err := ix.Header(); !errors.Is(err, ErrChanged) {
		t.Fatalf("Header on a CSV cut short = %v, want ErrChanged", err)
	}
	_ = sink
}
