package join

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/csvidx/csvidx/index"
)

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
	for i := range 64 {
		mode := Mode(i % 8)
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
// indexed joins as far as indexed: the bitmap of RIGHT's rows, and
// the read-ahead, follow the part the index covers, not the file's size
// (issue 38, A3: out of memory before).
func TestJoinRightGrown(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	if err := os.Truncate(rp, 8<<40); err != nil {
		t.Skipf("this file system takes no sparse file of 8 TiB: %v", err)
	}
	for _, ahead := range []ReadAhead{ReadAheadAuto, ReadAheadAlways} {
		for mode, want := range map[Mode]string{Right: "k,k,v\n2,2,b\n,1,a\n", Full: "k,k,v\n2,2,b\n,1,a\n", RightSemi: "k,v\n2,b\n", RightAnti: "k,v\n1,a\n"} {
			j, err := New(strings.NewReader("k\n2\n"), rp, &Options{Mode: mode, Key: "k", ReadAhead: ahead})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err = j.Run(context.Background(), &out)
			j.Close()
			if err != nil || out.String() != want {
				t.Fatalf("mode %d, read-ahead %d: %q, %v; want %q", mode, ahead, out.String(), err, want)
			}
		}
	}
}

// TestJoinLeftReadError: LEFT failing after its header, in the middle of
// its rows, stops the join with that error, naming the left file, whatever
// the mode.
func TestJoinLeftReadError(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	errRead := errors.New("read error")
	var lb strings.Builder
	lb.WriteString("k\n")
	for i := range 100000 {
		fmt.Fprintf(&lb, "%d\n", i%3)
	}
	for mode := Inner; mode <= RightAnti; mode++ {
		left := io.MultiReader(strings.NewReader(lb.String()), iotestErr{errRead})
		j, err := New(left, rp, &Options{Mode: mode, Key: "k"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = j.Run(context.Background(), io.Discard)
		j.Close()
		if !errors.Is(err, errRead) || !strings.HasPrefix(err.Error(), "the left file: ") {
			t.Errorf("mode %d: Run with LEFT failing: %v, want the read error, naming the left file", mode, err)
		}
	}
}

// TestJoinProgress: Progress, read from another goroutine while a join
// runs, never goes back; at the end it counts LEFT's bytes (a BOM and the
// header included) and data records, the rows written, and for the modes
// that go through RIGHT after LEFT, all of RIGHT's bytes after its header.
func TestJoinProgress(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var rb, lb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 5000 {
		fmt.Fprintf(&rb, "%d,%d\n", i, i)
	}
	lb.WriteString("\xef\xbb\xbfk\n")
	for i := range 100000 {
		fmt.Fprintf(&lb, "%d\n", 2+i%7000) // RIGHT's 0 and 1 unmatched
	}
	lb.WriteString("3") // an unterminated last record
	rp := writeCSV(t, rb.String())
	build(t, rp, &index.BuildOptions{Key: "k"})
	for _, mode := range []Mode{Inner, Full, RightAnti} {
		j, err := New(strings.NewReader(lb.String()), rp, &Options{Mode: mode, Key: "k"})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		seen := make(chan error, 1)
		go func() {
			var last Progress
			for {
				p := j.Progress()
				if p.LeftBytes < last.LeftBytes || p.LeftRows < last.LeftRows || p.Rows < last.Rows || p.RightBytes < last.RightBytes || p.RightTotal < last.RightTotal {
					seen <- fmt.Errorf("%+v after %+v", p, last)
					return
				}
				last = p
				select {
				case <-done:
					seen <- nil
					return
				default:
				}
			}
		}()
		rows, err := j.Run(context.Background(), io.Discard)
		close(done)
		if err != nil {
			t.Fatal(err)
		}
		if err := <-seen; err != nil {
			t.Errorf("mode %d: the progress went back: %v", mode, err)
		}
		p := j.Progress()
		j.Close()
		want := Progress{LeftBytes: int64(lb.Len()), LeftRows: 100001, Rows: rows}
		if mode != Inner {
			want.RightBytes = int64(rb.Len() - len("k,w\n"))
			want.RightTotal = want.RightBytes
		}
		if p != want || rows == 0 {
			t.Errorf("mode %d: progress at the end %+v, want %+v", mode, p, want)
		}
	}
}
