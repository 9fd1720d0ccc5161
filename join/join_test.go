package join

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/csvidx/csvidx/index"
)

// joinRef is the in-test reference join: RIGHT's rows by key, in order.
func joinRef(mode Mode, left [][2]string, right [][2]string) []string {
	byKey := map[string][]int{}
	for i, r := range right {
		byKey[r[0]] = append(byKey[r[0]], i)
	}
	out := []string{"k,v,k,w"}
	if mode == Semi || mode == Anti {
		out = []string{"k,v"}
	}
	matched := map[int]bool{}
	for _, l := range left {
		rows := byKey[l[0]]
		if l[0] == "" {
			rows = nil // an empty key matches nothing
		}
		switch mode {
		case Semi, Anti:
			if (len(rows) > 0) == (mode == Semi) {
				out = append(out, l[0]+","+l[1])
			}
			continue
		}
		for _, i := range rows {
			matched[i] = true
			out = append(out, l[0]+","+l[1]+","+right[i][0]+","+right[i][1])
		}
		if len(rows) == 0 && (mode == Left || mode == Full) {
			out = append(out, l[0]+","+l[1]+",,")
		}
	}
	if mode == Right || mode == Full {
		for i, r := range right {
			if !matched[i] {
				out = append(out, ",,"+r[0]+","+r[1])
			}
		}
	}
	return out
}

// TestJoinWorkers: with several workers and many batches, a heavy key whose
// rows overflow a worker's buffer, and every mode, the join's output is the
// reference's, line for line and in order.
func TestJoinWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := rand.New(rand.NewPCG(30, 30))
	var right [][2]string
	var rb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 30000 {
		k := fmt.Sprint(r.IntN(3000))
		if i%2 == 0 {
			k = "heavy" // 15,000 rows: about 1.5 MiB of output a match
		}
		w := fmt.Sprintf("w%d-%s", i, strings.Repeat("x", r.IntN(60)))
		right = append(right, [2]string{k, w})
		rb.WriteString(k + "," + w + "\n")
	}
	rp := writeCSV(t, rb.String())
	build(t, rp, &index.BuildOptions{Key: "k"})
	var left [][2]string
	var lb strings.Builder
	lb.WriteString("k,v\n")
	for i := range 20000 {
		k := fmt.Sprint(r.IntN(4000)) // some absent
		switch i % 5000 {
		case 7:
			k = "heavy"
		case 8:
			k = ""
		}
		left = append(left, [2]string{k, fmt.Sprint(i)})
		lb.WriteString(k + "," + fmt.Sprint(i) + "\n")
	}
	type config struct {
		mode Mode
		res  index.Resources
	}
	var configs []config
	for _, mode := range []Mode{Inner, Left, Semi, Anti, Right, Full} {
		configs = append(configs, config{mode, index.Resources{}})
	}
	// The bitmap of --right and --full in a file, past a limit of a byte.
	configs = append(configs, config{Right, index.Resources{MemLimit: 1}}, config{Full, index.Resources{MemLimit: 1, TmpDir: t.TempDir()}})
	for _, c := range configs {
		mode := c.mode
		j, err := New(strings.NewReader(lb.String()), rp, &Options{Mode: mode, Key: "k", Resources: c.res})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rows, err := j.Run(context.Background(), &out)
		j.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := joinRef(mode, left, right)
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("mode %d: line %d: %q, want %q", mode, i, got[i], want[i])
			}
		}
		if len(got) != len(want) || rows != int64(len(want)-1) {
			t.Fatalf("mode %d: %d lines, %d rows; want %d lines", mode, len(got), rows, len(want))
		}
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

var errWrite = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errWrite
	}
	f.n -= len(p)
	return len(p), nil
}

// TestJoinWriteFails: a write error stops the join and is returned, with
// several workers in flight.
func TestJoinWriteFails(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var rb, lb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 1000 {
		fmt.Fprintf(&rb, "%d,%d\n", i, i)
	}
	lb.WriteString("k\n")
	for i := range 200000 {
		fmt.Fprintf(&lb, "%d\n", i%1000)
	}
	rp := writeCSV(t, rb.String())
	build(t, rp, &index.BuildOptions{Key: "k"})
	j, err := New(strings.NewReader(lb.String()), rp, &Options{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Run(context.Background(), &failWriter{n: 100 << 10}); !errors.Is(err, errWrite) {
		t.Fatalf("Run into a failing writer: %v, want the write error", err)
	}
}

// TestJoinRightTruncated: RIGHT cut short while a join reads it (issue 38,
// A7) is the "changed while being read" error, in every mode, and never a
// hang: a worker's fault used to leave the reader blocked handing it the
// next batch.
func TestJoinRightTruncated(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var rb, lb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 20000 {
		fmt.Fprintf(&rb, "%d,%d\n", i, i)
	}
	lb.WriteString("k\n")
	for i := range 400000 {
		fmt.Fprintf(&lb, "%d\n", i%20000)
	}
	// The hang took the reader picking a free batch over the cancellation
	// in a select three times running: one join in eight.
	for i := range 60 {
		mode := Mode(i % 6)
		rp := writeCSV(t, rb.String())
		build(t, rp, &index.BuildOptions{Key: "k"})
		left := &truncatingReader{r: strings.NewReader(lb.String()), after: 400 << 10, path: rp}
		j, err := New(left, rp, &Options{Mode: mode, Key: "k", ReadAhead: ReadAheadNever})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := j.Run(context.Background(), io.Discard)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, index.ErrChanged) || strings.Count(err.Error(), rp) != 1 {
				t.Errorf("mode %d: Run on a truncated RIGHT: %v, want index.ErrChanged naming RIGHT once", mode, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("mode %d: Run on a truncated RIGHT has not returned in 20 s", mode)
		}
		j.Close()
	}
}

// truncatingReader reads r, and truncates the file at path once it has
// read after bytes of r, in reads of 64 KiB at most: the join has joined
// batches by then.
type truncatingReader struct {
	r     io.Reader
	after int
	path  string
}

func (t *truncatingReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p[:min(len(p), 64<<10)])
	if t.after -= n; t.after < 0 && t.path != "" {
		if err := os.Truncate(t.path, 0); err != nil {
			return 0, err
		}
		t.path = ""
	}
	return n, err
}

// TestJoinRightGrown: a RIGHT that grew to 8 TiB (sparse) since it was
// indexed joins as far as indexed: the bitmap of --right and --full, and
// the read-ahead, follow the part the index covers, not the file's size
// (issue 38, A3: out of memory before).
func TestJoinRightGrown(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	if err := os.Truncate(rp, 8<<40); err != nil {
		t.Skipf("this file system takes no sparse file of 8 TiB: %v", err)
	}
	for _, ahead := range []ReadAhead{ReadAheadAuto, ReadAheadAlways} {
		for _, mode := range []Mode{Right, Full} {
			j, err := New(strings.NewReader("k\n2\n"), rp, &Options{Mode: mode, Key: "k", ReadAhead: ahead})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err = j.Run(context.Background(), &out)
			j.Close()
			if want := "k,k,v\n2,2,b\n,1,a\n"; err != nil || out.String() != want {
				t.Fatalf("mode %d, read-ahead %d: %q, %v; want %q", mode, ahead, out.String(), err, want)
			}
		}
	}
}

// TestJoinBitsFile: past the memory limit, the bitmap lives in a
// temporary file that has no name (nothing is left in its directory), and
// a directory it cannot be made in is an error before any row is written.
func TestJoinBitsFile(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	dir := t.TempDir()
	j, err := New(strings.NewReader("k\n2\n"), rp, &Options{Mode: Full, Key: "k", Resources: index.Resources{MemLimit: 1, TmpDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := j.Run(context.Background(), &out); err != nil || out.String() != "k,k,v\n2,2,b\n,1,a\n" {
		t.Fatalf("%q, %v", out.String(), err)
	}
	j.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d files left in the bitmap's directory", len(entries))
	}
	missing := filepath.Join(dir, "nope")
	j, err = New(strings.NewReader("k\n2\n"), rp, &Options{Mode: Right, Key: "k", Resources: index.Resources{MemLimit: 1, TmpDir: missing}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	out.Reset()
	if _, err := j.Run(context.Background(), &out); err == nil || !strings.Contains(err.Error(), missing) || out.Len() > 0 {
		t.Fatalf("a bitmap in a missing directory: %q, %v; want an error naming it, and no output", out.String(), err)
	}
}

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
