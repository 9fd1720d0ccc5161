package join

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/source"
)

// TestRightChangingUnderJoins truncates and rewrites RIGHT while joins
// open it and run: resolving RIGHT's index by the key's name, and
// explaining a missing index, read RIGHT's header through a mapping, as
// the lookups read its rows. Each may fail with index.ErrChanged or index.ErrStale, or
// find no index while RIGHT is cut short, but never kill the process with
// SIGBUS (as Locate and explain did, unguarded), and a join that succeeds
// gives the rows of the RIGHT it was built for.
func TestRightChangingUnderJoins(t *testing.T) {
	var rb, lb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 50000 {
		fmt.Fprintf(&rb, "%d,%d\n", i, i)
	}
	lb.WriteString("k\n")
	for i := range 2000 {
		fmt.Fprintf(&lb, "%d\n", i*25)
	}
	orig := []byte(rb.String())
	rp := writeCSV(t, rb.String())
	build(t, rp, &index.BuildOptions{Key: "k"})
	j, err := New(strings.NewReader(lb.String()), rp, &Options{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := j.Run(context.Background(), &want); err != nil {
		t.Fatal(err)
	}
	j.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() { // the writer
		r := rand.New(rand.NewPCG(38, 7))
		f, err := os.OpenFile(rp, os.O_RDWR, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		for !stop.Load() {
			f.Truncate(int64(r.IntN(len(orig))))
			time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
			f.WriteAt(orig, 0)
			time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
		}
	})
	deadline := time.Now().Add(time.Second)
	var joins, good int
	for time.Now().Before(deadline) {
		joins++
		rightKey := ""
		if joins%2 == 0 {
			rightKey = "w" // no index by w: the error's path reads the header
		}
		j, err := New(strings.NewReader(lb.String()), rp, &Options{Key: "k", RightKey: rightKey})
		if err != nil {
			continue // stale, changed, no index: RIGHT is not what was indexed
		}
		var out bytes.Buffer
		_, err = j.Run(context.Background(), &out)
		j.Close()
		switch {
		case err == nil && !bytes.Equal(out.Bytes(), want.Bytes()):
			t.Fatalf("join %d succeeded with other rows than RIGHT's", joins)
		case err == nil:
			good++
		case !errors.Is(err, index.ErrChanged) && !errors.Is(err, index.ErrStale):
			t.Fatalf("join %d: %v", joins, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d joins, %d of them whole", joins, good)
}

// TestJoinNewErrors: what New refuses, before any row is joined: a mode or a
// delimiter that does not exist, resources out of range, a compressed
// LEFT, a LEFT whose first record holds a lone carriage return, a LEFT
// that cannot be read, a key LEFT's header does not name, and a key of
// another number of columns than RIGHT's index.
func TestJoinNewErrors(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	build(t, rp, &index.BuildOptions{Key: "k,v"})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("k\n1\n2\n"))
	zw.Close()
	errRead := errors.New("read error")
	compressed := func(format string) func(error) bool {
		return func(err error) bool {
			var e *source.CompressedError
			return errors.As(err, &e) && e.Path == "the left file" && e.Stream && e.Format == format
		}
	}
	is := func(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }
	var rangeErr *index.RangeError
	for _, c := range []struct {
		name string
		left io.Reader
		opts Options
		ok   func(error) bool // nil: any error
		msg  string           // the error's message, or a part of it
	}{
		{"mode past RightAnti", strings.NewReader("k\n1\n"), Options{Mode: RightAnti + 1, Key: "k"}, nil, "join mode 8"},
		{"negative mode", strings.NewReader("k\n1\n"), Options{Mode: -1, Key: "k"}, nil, "join mode -1"},
		{"coalesce, semi", strings.NewReader("k\n1\n"), Options{Mode: Semi, Key: "k", Coalesce: true}, is(ErrCoalesceOneSide), "only by joins that print both sides"},
		{"coalesce, right anti", strings.NewReader("k\n1\n"), Options{Mode: RightAnti, Key: "k", Coalesce: true}, is(ErrCoalesceOneSide), "only by joins that print both sides"},
		{"quote delimiter", strings.NewReader("k\n1\n"), Options{Key: "k", Delimiter: '"'}, nil, "delimiter '\"' is not allowed"},
		{"newline delimiter", strings.NewReader("k\n1\n"), Options{Key: "k", Delimiter: '\n'}, nil, "delimiter '\\n' is not allowed"},
		{"CR delimiter", strings.NewReader("k\n1\n"), Options{Key: "k", Delimiter: '\r'}, nil, "delimiter '\\r' is not allowed"},
		{"threads", strings.NewReader("k\n1\n"), Options{Key: "k", Resources: index.Resources{Threads: -1}},
			func(err error) bool { return errors.As(err, &rangeErr) }, "Threads is -1"},
		{"memory limit", strings.NewReader("k\n1\n"), Options{Key: "k", Resources: index.Resources{MemLimit: -1}},
			func(err error) bool { return errors.As(err, &rangeErr) }, "MemLimit is -1"},
		{"gzip", bytes.NewReader(gz.Bytes()), Options{Key: "k"}, compressed("gzip"),
			"the left file is gzip-compressed, and csvidx reads plain CSV: decompress it first"},
		{"zstd", strings.NewReader("\x28\xb5\x2f\xfd\x00\x58\x00\x00"), Options{Key: "k"}, compressed("zstd"), "the left file is zstd-compressed"},
		{"lone CR", strings.NewReader("k\rv\n1\n"), Options{Key: "k"}, is(index.ErrLineEnds),
			"the left file: lines end with a lone carriage return: its first record holds a carriage return (\\r) with no newline after it, at byte 1,"},
		{"lone CRs, no header", strings.NewReader("1,2\r3,4\r"), Options{Key: "0", NoHeader: true, RightKey: "k"}, is(index.ErrLineEnds), "at byte 3,"},
		{"read error", io.MultiReader(strings.NewReader("k"), iotestErr{errRead}), Options{Key: "k"}, is(errRead), "the left file: read error"},
		{"no such column", strings.NewReader("k\n1\n"), Options{Key: "nope"}, is(index.ErrColumn),
			`the left file's key: no such column "nope"`},
		{"wider key", strings.NewReader("k,v\n1,a\n"), Options{Key: "k,v", RightKey: "k"}, is(ErrLeftKey),
			`the join key: "k,v" is 2 columns of the left file, and the index of ` + rp + " is by 1 (k)"},
		{"narrower key", strings.NewReader("k,v\n1,a\n"), Options{Key: "k", RightKey: "k,v"}, is(ErrLeftKey),
			`the join key: "k" is 1 column of the left file, and the index of ` + rp + " is by 2 (k,v)"},
	} {
		j, err := New(c.left, rp, &c.opts)
		if err == nil {
			j.Close()
			t.Errorf("%s: New succeeded", c.name)
			continue
		}
		if c.ok != nil && !c.ok(err) {
			t.Errorf("%s: %T %v: not the error wanted", c.name, err, err)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %q, want %q in it", c.name, err.Error(), c.msg)
		}
	}
}

// iotestErr is a reader that fails.
type iotestErr struct{ err error }

func (r iotestErr) Read([]byte) (int, error) { return 0, r.err }

// TestJoinLeftKeyError: a key column past the fields of LEFT's first record
// (read with another delimiter than LEFT's) is a *LeftKeyError that says
// which column, what the record holds and how it was read, for a header
// and for a first row.
func TestJoinLeftKeyError(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	for _, c := range []struct {
		name string
		left string
		opts Options
		want LeftKeyError
		msg  string
	}{
		{"header", "k\tv\n9\tnine\n", Options{Key: "1"}, LeftKeyError{Key: "1", Column: 1, Fields: [][]byte{[]byte("k\tv")}, Header: true, Delim: ','},
			`the left file's key: column 1 of "1" does not exist: its header has 1 column: "k\tv" (delimiter ",")`},
		{"first row", "k\tv\n9\tnine\n", Options{Key: "3", NoHeader: true, RightKey: "k"}, LeftKeyError{Key: "3", Column: 3, Fields: [][]byte{[]byte("k\tv")}, Delim: ','},
			`the left file's key: column 3 of "3" does not exist: its first row has 1 column: "k\tv" (delimiter ",")`},
		{"composite", "a;b;c\n1;2;3\n", Options{Key: "0,5,1", Delimiter: ';', RightKey: "k"},
			LeftKeyError{Key: "0,5,1", Column: 5, Fields: [][]byte{[]byte("a"), []byte("b"), []byte("c")}, Header: true, Delim: ';'},
			`the left file's key: column 5 of "0,5,1" does not exist: its header has 3 columns: "a", "b", "c" (delimiter ";")`},
	} {
		j, err := New(strings.NewReader(c.left), rp, &c.opts)
		var e *LeftKeyError
		if !errors.As(err, &e) {
			if err == nil {
				j.Close()
			}
			t.Errorf("%s: New = %v, want a *LeftKeyError", c.name, err)
			continue
		}
		if e.Key != c.want.Key || e.Column != c.want.Column || e.Header != c.want.Header || e.Delim != c.want.Delim ||
			!slices.EqualFunc(e.Fields, c.want.Fields, bytes.Equal) {
			t.Errorf("%s: %+v, want %+v", c.name, *e, c.want)
		}
		if err.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.name, err.Error(), c.msg)
		}
	}
}

// TestJoinEmptyLeft: an empty LEFT has no header and no key to resolve:
// RIGHT's index is found by the key as given, no header is printed, and
// only --right and --full print rows, RIGHT's unmatched ones with no LEFT
// fields at all. A LEFT of a header alone prints the header, and for
// --right and --full every RIGHT row with LEFT's fields empty.
// --right-semi and --right-anti print RIGHT's header whatever LEFT is
// (but with NoHeader), and --right-anti every RIGHT row.
func TestJoinEmptyLeft(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	for _, c := range []struct {
		left     string
		noHeader bool
		want     [8]string // by mode
	}{
		{"", false, [8]string{Inner: "", Left: "", Semi: "", Anti: "", Right: "1,a\n2,b\n", Full: "1,a\n2,b\n", RightSemi: "k,v\n", RightAnti: "k,v\n1,a\n2,b\n"}},
		{"", true, [8]string{Right: "1,a\n2,b\n", Full: "1,a\n2,b\n", RightAnti: "1,a\n2,b\n"}},
		{"k\n", false, [8]string{Inner: "k,k,v\n", Left: "k,k,v\n", Semi: "k\n", Anti: "k\n", Right: "k,k,v\n,1,a\n,2,b\n", Full: "k,k,v\n,1,a\n,2,b\n", RightSemi: "k,v\n", RightAnti: "k,v\n1,a\n2,b\n"}},
		{"k", false, [8]string{Inner: "k,k,v\n", Left: "k,k,v\n", Semi: "k\n", Anti: "k\n", Right: "k,k,v\n,1,a\n,2,b\n", Full: "k,k,v\n,1,a\n,2,b\n", RightSemi: "k,v\n", RightAnti: "k,v\n1,a\n2,b\n"}},
	} {
		for mode := Inner; mode <= RightAnti; mode++ {
			key := "k"
			if c.noHeader {
				key = "0"
			}
			j, err := New(strings.NewReader(c.left), rp, &Options{Mode: mode, Key: key, NoHeader: c.noHeader, RightKey: "k"})
			if err != nil {
				t.Fatalf("LEFT %q, mode %d: %v", c.left, mode, err)
			}
			var out bytes.Buffer
			rows, err := j.Run(context.Background(), &out)
			j.Close()
			wantRows := int64(strings.Count(c.want[mode], "\n"))
			if c.left != "" || (mode == RightSemi || mode == RightAnti) && !c.noHeader {
				wantRows-- // the header
			}
			if err != nil || out.String() != c.want[mode] || rows != wantRows {
				t.Errorf("LEFT %q, no header %v, mode %d: %q, %d rows, %v; want %q, %d rows", c.left, c.noHeader, mode, out.String(), rows, err, c.want[mode], wantRows)
			}
		}
	}
	// With no RightKey, the key as given picks RIGHT's index.
	j, err := New(strings.NewReader(""), rp, &Options{Mode: Full, Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	var e *NoIndexError
	if _, err := New(strings.NewReader(""), rp, &Options{Mode: Full, Key: "v"}); !errors.As(err, &e) || e.Key != "v" {
		t.Fatalf("an empty LEFT by a key RIGHT has no index by: %v, want a *NoIndexError by v", err)
	}
}

// TestJoinRightBehind: RightBehind counts the bytes appended to RIGHT
// since its index was built; their rows take no part in the join. Run
// runs once.
func TestJoinRightBehind(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	f, err := os.OpenFile(rp, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("2,b\n1,c\n")
	f.Close()
	j, err := New(strings.NewReader("k\n1\n2\n"), rp, &Options{Mode: Full, Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if n := j.RightBehind(); n != 8 {
		t.Errorf("RightBehind = %d, want 8", n)
	}
	var out bytes.Buffer
	if rows, err := j.Run(context.Background(), &out); err != nil || rows != 2 || out.String() != "k,k,v\n1,1,a\n2,,\n" {
		t.Fatalf("Run: %q, %d rows, %v", out.String(), rows, err)
	}
	if _, err := j.Run(context.Background(), io.Discard); err == nil {
		t.Fatal("a second Run succeeded")
	}
}
