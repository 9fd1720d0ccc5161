package index

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestPreadLongRowsReleased: a heavy key's rows too long for a pread's
// window are read from the mapping, and the pages behind them are
// released as the first preadAfter rows' are: a get, a count and a get of
// several keys of 3,000 rows of 3 KB each (all past the 1 KiB window) end
// with a little of the CSV's mapping in memory, not the 9 MB they read.
func TestPreadLongRowsReleased(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,key,pad\n")
	pad := strings.Repeat("x", 3000)
	for i := range 3000 {
		fmt.Fprintf(&b, "%d,%s,%s\n", i, []string{"h", "g"}[i%2], pad)
	}
	p := writeCSV(t, b.String())
	build(t, p, &BuildOptions{Key: "key"})
	for name, look := range map[string]func(ix *Index) error{
		"get":   func(ix *Index) error { return ix.Lookup([]byte("h"), func([]byte) error { return nil }) },
		"count": func(ix *Index) error { _, err := ix.Count([]byte("h")); return err },
		"several": func(ix *Index) error {
			return ix.Get([][]byte{[]byte("h"), []byte("g")}, func([]byte) error { return nil })
		},
	} {
		ix := openIndex(t, p, nil)
		if err := look(ix); err != nil {
			t.Fatal(err)
		}
		if kib := mappedKiB(t, ix.Data()); kib > 2<<10 {
			t.Errorf("%s: %d KiB of the CSV's %d mapped in after the lookup", name, kib, len(ix.Data())>>10)
		}
	}
}

// mappedKiB returns the resident KiB of the mapping that starts at b's
// first byte, as /proc/self/smaps gives them.
func mappedKiB(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") {
			in = strings.HasPrefix(fields[0], start)
		} else if in && fields[0] == "Rss:" {
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}
