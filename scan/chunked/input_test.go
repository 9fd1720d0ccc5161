package chunked

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// TestReaderInputWindow: a ReaderInput's window holds the bytes asked
// for, at their offset, fewer only at the input's end, and an offset
// outside the input is an error.
func TestReaderInputWindow(t *testing.T) {
	data := []byte("0123456789abcdef")
	in := NewReaderAt(bytes.NewReader(data), int64(len(data)))
	if in.Size() != len(data) {
		t.Fatalf("size %d, want %d", in.Size(), len(data))
	}
	for _, c := range []struct{ off, n, end int }{{0, 4, 4}, {3, 5, 8}, {10, 100, 16}, {16, 4, 16}, {0, 0, 0}} {
		w, err := in.Window(c.off, c.n)
		if err != nil || w.Base != c.off || w.End() != c.end || !bytes.Equal(w.Data, data[c.off:c.end]) {
			t.Fatalf("Window(%d, %d) = %q at %d, %v; want %q at %d", c.off, c.n, w.Data, w.Base, err, data[c.off:c.end], c.off)
		}
		in.Release(w)
	}
	for _, c := range []struct{ off, n int }{{-1, 4}, {17, 1}, {0, -1}} {
		if _, err := in.Window(c.off, c.n); err == nil {
			t.Fatalf("Window(%d, %d): no error", c.off, c.n)
		}
	}
}

// TestReaderInputReuses: a released window's buffer serves a later window
// it can hold, the smallest that can, and a buffer past maxPooled is not
// kept.
func TestReaderInputReuses(t *testing.T) {
	data := make([]byte, maxPooled+10)
	in := NewReaderAt(bytes.NewReader(data), int64(len(data)))
	w, err := in.Window(0, 100)
	if err != nil {
		t.Fatal(err)
	}
	first := &w.Data[0]
	in.Release(w)
	if w, err = in.Window(50, 60); err != nil || &w.Data[0] != first {
		t.Fatalf("the second window's buffer is not the first's (%v)", err)
	}
	large, err := in.Window(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	in.Release(large)
	in.Release(w)
	if w, err = in.Window(5, 10); err != nil || &w.Data[0] != first {
		t.Fatalf("a window of 10 bytes took a buffer of %d, not the one of 100 (%v)", cap(w.Data), err)
	}
	in.Release(w)
	big, err := in.Window(0, len(data))
	if err != nil {
		t.Fatal(err)
	}
	in.Release(big)
	if len(in.free) != 2 || cap(in.free[0])+cap(in.free[1]) != 1100 {
		t.Fatalf("%d buffers kept; want the two small ones", len(in.free))
	}
}

// failingReader is a ReaderAt whose reads that reach past at fail with err,
// having read the bytes before it.
type failingReader struct {
	data []byte
	at   int
	err  error
}

func (r failingReader) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, r.data[min(int(off), len(r.data)):])
	if int(off)+len(p) > r.at {
		return max(0, min(n, r.at-int(off))), r.err
	}
	return n, nil
}

// countingInput counts the windows of its Input not yet released.
type countingInput struct {
	Input
	held atomic.Int64
}

func (in *countingInput) Window(off, n int) (Window, error) {
	w, err := in.Input.Window(off, n)
	if err == nil {
		in.held.Add(1)
	}
	return w, err
}

func (in *countingInput) Release(w Window) {
	in.held.Add(-1)
	in.Input.Release(w)
}

// TestReaderInputErrors: a read that fails, anywhere in the input, fails
// the scan with the read's error, sequentially and in parallel, and so
// does a source that ends before the input's size (ErrShortRead); no
// window is left unreleased.
func TestReaderInputErrors(t *testing.T) {
	var b bytes.Buffer
	r := rand.New(rand.NewPCG(64, 64))
	for b.Len() < 20<<10 {
		fmt.Fprintf(&b, "%d,\"k\n%d\"\r\n", b.Len(), r.IntN(100))
	}
	data := b.Bytes()
	boom := errors.New("boom")
	for _, at := range []int{0, 1, 100, 5000, len(data) / 2, len(data) - 1} {
		for _, src := range []struct {
			r    io.ReaderAt
			want error
		}{
			{failingReader{data, at, boom}, boom},
			{bytes.NewReader(data[:at]), ErrShortRead}, // the source shrank
		} {
			for _, threads := range []int{1, 2, 3} {
				in := &countingInput{Input: NewReaderAt(src.r, int64(len(data)))}
				s := &Scan{Input: in, Delim: ',', KeyCol: 1, Plan: NewPlan(threads, 1<<20, int64(len(data)), Tuning{ChunkBytes: 1000})}
				s.Plan.WindowBytes = 700
				if _, err := s.Run(context.Background(), 0, newSorter(t)); !errors.Is(err, src.want) {
					t.Fatalf("failing at %d (%T), %d threads: %v; want %v", at, src.r, threads, err, src.want)
				}
				if n := in.held.Load(); n != 0 {
					t.Fatalf("failing at %d (%T), %d threads: %d windows not released", at, src.r, threads, n)
				}
			}
		}
	}
}

// badInput breaks the Input contract: its windows hold less than asked
// short of the end.
type badInput struct{ data []byte }

func (in badInput) Size() int { return len(in.data) }

func (in badInput) Window(off, n int) (Window, error) {
	return Window{Data: in.data[off:min(len(in.data), off+1)], Base: off}, nil
}

func (badInput) Release(Window) {}

// TestInputShortWindow: an Input whose windows hold less than asked fails
// the scan, which neither loops nor reads past the window.
func TestInputShortWindow(t *testing.T) {
	data := bytes.Repeat([]byte("a,b\n"), 1000)
	for _, threads := range []int{1, 2} {
		s := &Scan{Input: badInput{data}, Delim: ',', Plan: NewPlan(threads, 1<<20, int64(len(data)), Tuning{ChunkBytes: 100})}
		if _, err := s.Run(context.Background(), 0, newSorter(t)); err == nil {
			t.Fatalf("%d threads: no error", threads)
		}
	}
}

// TestMappedInput: a Scan given a Mapped input finds what one given the
// same Data does, and reads it in place: its windows are the data itself.
func TestMappedInput(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 65))
	for i := range 50 {
		data := csvLike(r, 40, ',')
		plan := NewPlan(2, 1<<20, int64(len(data)), Tuning{ChunkBytes: 1 + r.IntN(50)})
		want := scanOf(t, Scan{Data: data, Delim: ',', KeyCol: i % 3, Plan: plan}, 0)
		got := scanOf(t, Scan{Input: &Mapped{Data: data}, Delim: ',', KeyCol: i % 3, Plan: plan}, 0)
		if got.err != nil || want.err != nil || got.res.Tally != want.res.Tally || !slices.EqualFunc(got.recs, want.recs, slices.Equal) {
			t.Fatalf("%q: %+v, %v; want %+v, %v, or the records differ", data, got.res, got.err, want.res, want.err)
		}
	}
	data := []byte("a,b\n")
	s := &Scan{Input: &Mapped{Data: data}}
	if w, err := s.windowAt(2, 1); err != nil || &w.Data[0] != &data[0] || w.Base != 0 || len(w.Data) != len(data) {
		t.Fatalf("the window of a Mapped input is not its data")
	}
}
