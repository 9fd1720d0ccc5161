package tooltest

import (
	"os"
	"testing"
)

// TestCompress: the script sees $IN holding the data and writes $OUT.
func TestCompress(t *testing.T) {
	out := Compress(t, []byte("a,b\n"), "sh", `cp "$IN" "$OUT" && printf x >> "$OUT"`, "o.txt")
	if b, err := os.ReadFile(out); err != nil || string(b) != "a,b\nx" {
		t.Fatalf("$OUT holds %q, %v", b, err)
	}
}
