package index

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCSVChangingUnderLookups truncates and rewrites the CSV while
// goroutines look keys up in it through their open, mapped index. A lookup
// may fail, with ErrChanged or ErrStale (and opening may refuse a stale
// index), but a lookup and the Check after it that both succeed must have
// given exactly the rows of the CSV the index was built for: no SIGBUS
// death, no zero-filled or half-rewritten rows.
func TestCSVChangingUnderLookups(t *testing.T) {
	g, p := bigCSV(t)
	orig := []byte(g.data)
	// Another CSV of the same size, with other rows: what a rewrite puts
	// there. Its first and last bytes differ from the original's.
	other := bytes.Clone(orig)
	for i := range other {
		if other[i] >= 'a' && other[i] <= 'z' {
			other[i] = 'a' + (other[i]-'a'+1)%26
		}
	}
	keys := append(nastyKeys, "missing")
	want := map[string]string{}
	for _, k := range keys {
		want[k] = g.want(k)
	}

	var stop atomic.Bool
	var changes atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the writer
		defer wg.Done()
		r := rand.New(rand.NewPCG(7, 7))
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		for !stop.Load() {
			switch r.IntN(3) {
			case 0: // cut short, then restored
				f.Truncate(int64(r.IntN(len(orig))))
			case 1: // rewritten with other rows, then restored
				f.Truncate(0)
				f.WriteAt(other[:r.IntN(len(other))], 0)
			case 2: // zeros where the index has rows, as a crash of a writer leaves them
				off := r.IntN(len(orig))
				f.WriteAt(make([]byte, 4096), int64(off))
			}
			changes.Add(1)
			time.Sleep(time.Duration(r.IntN(300)) * time.Microsecond)
			f.WriteAt(orig, 0)
			f.Truncate(int64(len(orig)))
			time.Sleep(time.Duration(r.IntN(300)) * time.Microsecond)
		}
	}()

	var lookups, right, failed, refused atomic.Int64
	deadline := time.Now().Add(2 * time.Second)
	for range 2 {
		wg.Add(1)
		go func() { // a reader
			defer wg.Done()
			for time.Now().Before(deadline) {
				ix, err := Open(p, nil)
				if err != nil {
					if !errors.Is(err, ErrStale) && !errors.Is(err, ErrChanged) {
						t.Errorf("Open: %v", err)
						return
					}
					refused.Add(1)
					continue
				}
				for ok := true; ok && time.Now().Before(deadline); {
					for _, k := range keys {
						var got []byte
						err := ix.Lookup([]byte(k), func(row []byte) error { got = append(got, row...); return nil })
						if err == nil {
							err = ix.Check()
						}
						lookups.Add(1)
						switch {
						case errors.Is(err, ErrChanged) || errors.Is(err, ErrStale):
							failed.Add(1)
							ok = false // reopen: a changed file is refused until restored
						case err != nil:
							t.Errorf("Lookup(%q): %v", k, err)
							return
						case string(got) != want[k]:
							t.Errorf("Lookup(%q) = %q, want %q", k, got, want[k])
							return
						default:
							right.Add(1)
						}
						if !ok {
							break
						}
					}
				}
				ix.Close()
			}
		}()
	}
	time.Sleep(time.Until(deadline))
	stop.Store(true)
	wg.Wait()
	if right.Load() == 0 || failed.Load() == 0 {
		t.Errorf("%d right and %d failed lookups: the test did not exercise both", right.Load(), failed.Load())
	}
	t.Logf("%d changes to the CSV under %d lookups: %d right, %d failed with ErrChanged or ErrStale, 0 wrong; %d opens refused",
		changes.Load(), lookups.Load(), right.Load(), failed.Load(), refused.Load())
}

// TestCSVWrittenInPlaceWhileOpen edits the middle of the CSV, outside both
// fingerprinted ends, while an index is open: Check sees the new
// modification time and reports ErrChanged.
func TestCSVWrittenInPlaceWhileOpen(t *testing.T) {
	_, p := bigCSV(t)
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Check(); err != nil {
		t.Fatalf("Check before any change: %v", err)
	}
	st, _ := os.Stat(p)
	time.Sleep(10 * time.Millisecond) // past the file system's clock tick
	editAt(t, p, st.Size()/2, 'X')
	if err := ix.Check(); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "written in place") {
		t.Fatalf("Check after an edit in place = %v, want ErrChanged", err)
	}
}

// TestCSVGrownWhileOpen appends to the CSV while an index is open, which
// Check accepts, then also edits its first bytes, which it does not: a
// grown CSV is checked by its fingerprints, not its modification time.
func TestCSVGrownWhileOpen(t *testing.T) {
	_, p := bigCSV(t)
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("appended,row\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := ix.Check(); err != nil {
		t.Fatalf("Check after an append: %v", err)
	}
	editAt(t, p, 10, 'X')
	if err := ix.Check(); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "covers changed") {
		t.Fatalf("Check after an append and an edit of the first bytes = %v, want ErrChanged", err)
	}
}

// TestCSVEditedWithTimeRestored edits the CSV's first bytes in place while
// an index is open and sets its modification time back, as rsync -t or
// touch -r would: Check must still see the change (through the change
// time, which moved, and then the fingerprints).
func TestCSVEditedWithTimeRestored(t *testing.T) {
	_, p := bigCSV(t)
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // so that the change time moves
	editAt(t, p, 10, 'X')
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := ix.Check(); !errors.Is(err, ErrChanged) {
		t.Fatalf("Check after an edit with the modification time set back = %v, want ErrChanged", err)
	}
}

// TestUpdateCSVShrinks: a CSV cut short while update runs, after its scan
// (as the progress callback reports the end of it), is an error
// (ErrChanged), never a result without the tail it claims, nor a panic.
// (A cut during the scan faults on the mapping, which mapping.Guard turns
// into ErrChanged: see mapping's TestGuardFault.)
func TestUpdateCSVShrinks(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,user\n")
	for i := range 2000 {
		b.WriteString(strings.Repeat("x", i%7) + ",u1\n")
	}
	p := writeCSV(t, b.String())
	build(t, p, &BuildOptions{Key: "user"})
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Repeat("9,u2\n", 1000))
	f.Close()
	res, err := Update(context.Background(), p, &UpdateOptions{NoCompact: true,
		Progress: func(done, total int64) {
			if done == total {
				os.Truncate(p, 100)
			}
		}})
	if !errors.Is(err, ErrChanged) || res != nil {
		t.Fatalf("Update = %+v, %v; want ErrChanged", res, err)
	}
}
