//go:build unix

package index

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLockFileRemovedWhileWaiting: a writer waiting for a lock whose
// holder removes the lock file does not hold a lock of the removed file: it
// locks the file at the path, and so waits for a writer that made a new
// one meanwhile. Two writers never hold the lock at once.
func TestLockFileRemovedWhileWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := takeLock(path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *writerLock)
	go func() {
		b, err := takeLock(path, nil, false)
		if err != nil {
			t.Error(err)
		}
		got <- b
	}()
	time.Sleep(50 * time.Millisecond) // b waits for a
	if ok, err := a.remove(); !ok || err != nil {
		t.Fatalf("the holder's remove: %v, %v", ok, err)
	}
	c, err := takeLock(path, nil, true) // a new lock file: free
	if err != nil {
		t.Fatalf("a writer after the remove: %v", err)
	}
	a.f.Close() // a releases the removed file's lock: b must not take it for the lock
	select {
	case <-got:
		t.Fatal("a writer took the lock of a removed lock file while another held the lock at its path")
	case <-time.After(100 * time.Millisecond):
	}
	c.unlock() // no index uses x.lock: c removes it, and b locks a file at the path
	b := <-got
	if b == nil || !b.atPath() {
		t.Fatal("the waiting writer holds no lock at the path")
	}
	b.unlock()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the last writer left the lock file of no index: %v", err)
	}
}
