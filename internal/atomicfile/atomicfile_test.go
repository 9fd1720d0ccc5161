package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCommitReplaces(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a[1].idx")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(target, false, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Fatalf("target changed before Commit: %q", got)
	}
	if left, _ := Leftovers(target); len(left) != 1 {
		t.Fatalf("Leftovers during the write = %v, want the temporary file", left)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Fatalf("target after Commit: %q", got)
	}
	if err := f.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	if left, _ := Leftovers(target); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestAbortKeepsOld(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "x")
	os.WriteFile(target, []byte("old"), 0o644)
	f, err := Create(target, false, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Fatalf("target after Abort: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory after Abort holds %d entries, want 1", len(entries))
	}
	if err := f.Commit(); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}
}

// TestDirect writes through direct I/O where the file system has it: whole
// aligned blocks, then an unaligned write, which the file must take too (by
// leaving direct I/O).
func TestDirect(t *testing.T) {
	target := filepath.Join(t.TempDir(), "d")
	f, err := Create(target, true, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("direct I/O here: %v", f.Direct())
	buf := AlignedBlocks(2)
	for i := range buf {
		buf[i] = byte(i)
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("tail")); err != nil {
		t.Fatalf("an unaligned write: %v", err)
	}
	if _, err := f.WriteAt(buf[:BlockSize], BlockSize); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(target)
	want := append(append(append([]byte{}, buf[:BlockSize]...), buf[:BlockSize]...), "tail"...)
	if string(got) != string(want) {
		t.Fatalf("read back %d bytes, want %d, or different content", len(got), len(want))
	}
}
