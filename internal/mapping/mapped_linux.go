package mapping

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// MappedKiB returns how many KiB of the mapping this process has mapped in:
// its Rss in /proc/self/smaps (Linux). (Resident says instead how much of
// the file is in the page cache.) Tests use it to hold lookups to their
// memory bounds.
func (m *Map) MappedKiB() (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(m.m))))
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's first line: its address range, then more
			in = strings.HasPrefix(fields[0], start)
		} else if in && fields[0] == "Rss:" {
			return strconv.Atoi(fields[1])
		}
	}
	return 0, fmt.Errorf("no mapping at %s in /proc/self/smaps", start)
}
