package atomicfile

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestBufferHugePages: a buffer of whole huge pages is private anonymous
// memory advised for huge pages (VmFlags "hg" without "sh" in smaps): shared
// anonymous memory is shmem, which gets no transparent huge pages. Whether
// the kernel then gives huge pages is its choice, not checked here.
func TestBufferHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages on this kernel:", err)
	}
	b, err := NewBuffer(2 * hugePage)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	flags := " " + vmFlags(t, addr(b.Bytes())) + " "
	if !strings.Contains(flags, " hg ") || strings.Contains(flags, " sh ") {
		t.Fatalf("the buffer's mapping has VmFlags %q: want hg (advised for huge pages) and not sh (shared)", flags)
	}
}

// vmFlags returns the VmFlags of the mapping holding a, from /proc/self/smaps.
func vmFlags(t *testing.T, a uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 { // a mapping's first line
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping holds %#x", a)
	return ""
}
