package index

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// rowsFile is a CSV of rows "i,uK" whose keys and offsets the test knows.
type rowsFile struct {
	path string
	ends []int64 // where each row ends
	keys []int   // K of each row
	size int64
}

func (f *rowsFile) add(t *testing.T, n int) {
	var b strings.Builder
	for range n {
		i := len(f.keys)
		k := (i * 7919) % 97
		line := fmt.Sprintf("%d,u%d\n", i, k)
		b.WriteString(line)
		f.size += int64(len(line))
		f.ends = append(f.ends, f.size)
		f.keys = append(f.keys, k)
	}
	appendCSV(t, f.path, b.String())
}

// count returns how many of the rows within the first size bytes have key
// uK.
func (f *rowsFile) count(k int, size int64) int64 {
	n := int64(0)
	for i, end := range f.ends {
		if end > size {
			break
		}
		if f.keys[i] == k {
			n++
		}
	}
	return n
}

// TestReadersDuringUpdates runs readers while a writer appends, updates and
// compacts 50 times: every answer a reader gets must be exactly the rows of
// the part of the CSV its index covered when it opened it, whatever the
// writer replaced meanwhile.
func TestReadersDuringUpdates(t *testing.T) {
	f := &rowsFile{path: writeCSV(t, "id,user\n"), size: int64(len("id,user\n"))}
	f.add(t, 3000)
	build(t, f.path, &BuildOptions{Key: "user"})
	var mu sync.RWMutex // guards f's slices, not the files
	var stop atomic.Bool
	var reads atomic.Int64
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				ix, err := Open(f.path, nil)
				if err != nil {
					errs <- fmt.Errorf("Open: %w", err)
					return
				}
				covered := int64(ix.furthest().Scanned)
				k := (i*31 + w) % 97
				n, err := ix.Count([]byte(fmt.Sprintf("u%d", k)))
				var rows int64
				if err == nil {
					err = ix.Lookup([]byte(fmt.Sprintf("u%d", k)), func([]byte) error { rows++; return nil })
				}
				ix.Close()
				if err != nil {
					errs <- err
					return
				}
				mu.RLock()
				want := f.count(k, covered)
				mu.RUnlock()
				if n != want || rows != want {
					errs <- fmt.Errorf("u%d over %d bytes: Count %d, Lookup %d rows, want %d", k, covered, n, rows, want)
					return
				}
				reads.Add(1)
			}
		}()
	}
	for cycle := 0; cycle < 50; cycle++ {
		mu.Lock()
		f.add(t, 40+cycle)
		mu.Unlock()
		if _, err := Update(context.Background(), f.path, &UpdateOptions{NoCompact: cycle%3 != 0}); err != nil {
			t.Fatal(err)
		}
		if cycle%5 == 4 {
			if _, err := Compact(context.Background(), f.path, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if reads.Load() < 50 {
		t.Fatalf("only %d reads ran during the updates", reads.Load())
	}
	t.Logf("%d consistent reads during 50 update cycles", reads.Load())
	if _, err := os.Stat(f.path); err != nil {
		t.Fatal(err)
	}
}
