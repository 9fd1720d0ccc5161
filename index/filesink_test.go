package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/atomicfile"
)

// TestFileSinkGrowsWhileTheDiskStalls holds every write of a file sink
// back: the sink must go on taking pages, making buffers up to its most
// and no further, and once the writes go through, the file must hold every
// page in order.
func TestFileSinkGrowsWhileTheDiskStalls(t *testing.T) {
	for _, size := range []int{smallWrite, bigWrite} { // from the heap, and mapped
		t.Run(fmt.Sprint(size), func(t *testing.T) { testFileSinkGrows(t, size) })
	}
}

func testFileSinkGrows(t *testing.T, size int) {
	const most = 7
	dir := t.TempDir()
	gate := make(chan struct{})
	var open sync.Once
	release := func() { open.Do(func() { close(gate) }) }
	atomicfile.SetFaults(func(op, path string) error {
		if op == "write" && strings.HasPrefix(path, dir) {
			<-gate
		}
		return nil
	})
	defer atomicfile.SetFaults(nil)
	path := filepath.Join(dir, "x.csvidx")
	f, err := atomicfile.Create(path, true, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	s, err := newFileSink(f, writerShape{size: size, first: 2, ceiling: most})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	defer release() // before the writer is waited for, however the test ends
	perBuffer := size / format.PageSize
	var want bytes.Buffer
	want.Write(make([]byte, format.PageSize)) // the header's place
	fill := func(pages int) {
		for range pages {
			page := s.slot()
			for i := range page {
				page[i] = byte(want.Len() / format.PageSize)
			}
			want.Write(page)
			if err := s.filled(); err != nil {
				t.Error(err)
				return
			}
		}
	}
	// Every buffer but one with the stalled writer, and the last being
	// filled: no wait.
	filled := make(chan struct{})
	go func() { fill((most - 1) * perBuffer); close(filled) }()
	select {
	case <-filled:
	case <-time.After(5 * time.Second):
		release()
		<-filled
		t.Fatalf("the sink waited for the stalled disk with %d of %d buffers made", len(s.made), most)
	}
	if len(s.made) != most {
		t.Fatalf("%d buffers made with the writes stalled, want %d", len(s.made), most)
	}
	// One more buffer's worth must wait for the disk.
	done := make(chan struct{})
	go func() { fill(perBuffer); close(done) }()
	select {
	case <-done:
		t.Fatal("the sink took a buffer more than its most while every write stalled")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	<-done
	if len(s.made) != most {
		t.Fatalf("%d buffers made, want %d", len(s.made), most)
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the file holds %d bytes, not the %d pages written in order", len(got), want.Len()/format.PageSize)
	}
}

// TestFileSinkErrorAfterGrowing: a write that fails once the sink has
// made more buffers than it starts with (the writes stalled first) is the
// error the sink returns, at whichever write it comes, and neither the
// writing, the flush nor close hangs.
func TestFileSinkErrorAfterGrowing(t *testing.T) {
	for _, failAt := range []int32{1, 3, 6, 9} {
		t.Run(fmt.Sprint(failAt), func(t *testing.T) {
			dir := t.TempDir()
			gate := make(chan struct{})
			var writes atomic.Int32
			boom := errors.New("boom")
			atomicfile.SetFaults(func(op, path string) error {
				if op == "write" && strings.HasPrefix(path, dir) {
					<-gate
					if writes.Add(1) >= failAt {
						return boom
					}
				}
				return nil
			})
			defer atomicfile.SetFaults(nil)
			f, err := atomicfile.Create(filepath.Join(dir, "x.csvidx"), true, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Abort()
			s, err := newFileSink(f, writerShape{size: smallWrite, first: 2, ceiling: 8})
			if err != nil {
				t.Fatal(err)
			}
			perBuffer := smallWrite / format.PageSize
			var werr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := range 20 * perBuffer {
					if werr = s.filled(); werr != nil {
						return
					}
					if i == 7*perBuffer { // all 8 buffers made, 7 with the stalled writer
						close(gate)
					}
				}
				werr = s.flush()
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the sink hung after a failed write")
			}
			if len(s.made) != 8 {
				t.Errorf("%d buffers made, want 8", len(s.made))
			}
			closed := make(chan struct{})
			go func() { s.close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("close hung after a failed write")
			}
			if !errors.Is(werr, boom) {
				t.Fatalf("the sink returned %v, want the failed write's error", werr)
			}
		})
	}
}
