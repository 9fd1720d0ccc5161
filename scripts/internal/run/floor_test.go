package run

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFloor checks that the floor writes the size asked for, rounded
// up to whole writes, with the pattern (not zeros a virtual disk might
// skip), and that WriteFloor leaves nothing behind.
func TestWriteFloor(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int64{1, floorWrite, floorWrite + 1} {
		f, err := os.Create(filepath.Join(dir, "f"))
		if err != nil {
			t.Fatal(err)
		}
		if err := writeFloor(f, size); err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		f.Close()
		data, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		want := (size + floorWrite - 1) / floorWrite * floorWrite
		if int64(len(data)) != want {
			t.Fatalf("size %d: wrote %d bytes, want %d", size, len(data), want)
		}
		for i, b := range data {
			if b != byte(i%floorWrite) {
				t.Fatalf("size %d: byte %d is %d, want %d", size, i, b, byte(i%floorWrite))
			}
		}
	}
	os.Remove(filepath.Join(dir, "f"))
	d, err := WriteFloor(dir, floorWrite+1)
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 {
		t.Fatalf("WriteFloor took %v", d)
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Fatalf("WriteFloor left %v", left)
	}
}
