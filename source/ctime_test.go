package source

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestChangeTime: on Linux the change time is known and moves when the
// file's inode changes (a chmod), even with the modification time set back;
// elsewhere it is reported unknown.
func TestChangeTime(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(p, []byte("k\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	before, ok := ChangeTime(st)
	if runtime.GOOS != "linux" {
		if ok {
			t.Fatal("ChangeTime known off Linux")
		}
		return
	}
	if !ok {
		t.Fatal("ChangeTime unknown on Linux")
	}
	time.Sleep(10 * time.Millisecond)
	mtime := st.ModTime()
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, mtime, mtime) // the modification time set back
	st, _ = os.Stat(p)
	if after, _ := ChangeTime(st); after <= before {
		t.Errorf("change time %d after a chmod, %d before", after, before)
	}
}
