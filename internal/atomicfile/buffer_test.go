package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestBuffer: a Buffer is zeroed, as long as asked, aligned to a block, and
// to a huge page when its size is a multiple of one (on Linux, where it is
// mapped); a direct write from it lands in the file; Free can be called
// twice; a size that is not a whole number of blocks is refused.
func TestBuffer(t *testing.T) {
	for _, size := range []int{0, -BlockSize, 100, BlockSize + 1} {
		if _, err := NewBuffer(size); err == nil {
			t.Errorf("NewBuffer(%d) did not fail", size)
		}
	}
	for _, size := range []int{BlockSize, 1 << 20, 3 * BlockSize, hugePage, 2 * hugePage} {
		b, err := NewBuffer(size)
		if err != nil {
			t.Fatal(err)
		}
		buf := b.Bytes()
		if len(buf) != size || cap(buf) != size {
			t.Fatalf("size %d: got len %d cap %d", size, len(buf), cap(buf))
		}
		if a := addr(buf); a%BlockSize != 0 || (size%hugePage == 0 && runtime.GOOS == "linux" && a%hugePage != 0) {
			t.Fatalf("size %d: address %#x not aligned", size, a)
		}
		if i := bytes.IndexFunc(buf, func(r rune) bool { return r != 0 }); i >= 0 {
			t.Fatalf("size %d: byte %d not zero", size, i)
		}
		for i := range buf {
			buf[i] = byte(i * 7)
		}
		target := filepath.Join(t.TempDir(), "d")
		f, err := Create(target, true, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(buf, 0); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(target); !bytes.Equal(got, buf) {
			t.Fatalf("size %d: the file holds %d bytes, not the buffer's", size, len(got))
		}
		if err := b.Free(); err != nil {
			t.Fatal(err)
		}
		if err := b.Free(); err != nil || b.Bytes() != nil {
			t.Fatalf("a second Free: %v, bytes %d", err, len(b.Bytes()))
		}
	}
}
