package options

import (
	"strings"
	"testing"
)

func TestDelimiter(t *testing.T) {
	for in, want := range map[string]byte{",": ',', ";": ';', `\t`: '\t', "tab": '\t', "|": '|'} {
		if got, err := Delimiter(in); err != nil || got != want {
			t.Errorf("Delimiter(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ab", "\\n", "tabs"} {
		if _, err := Delimiter(in); err == nil || !strings.HasPrefix(err.Error(), "--delimiter ") {
			t.Errorf("Delimiter(%q) = %v, want a --delimiter error", in, err)
		}
	}
}

func TestResources(t *testing.T) {
	if _, err := Resources(64, MaxThreads, ""); err != nil {
		t.Fatalf("Resources(64, MaxThreads) = %v", err)
	}
	r, err := Resources(64, 2, "/tmp")
	if err != nil || r.MemLimit != 64<<20 || r.Threads != 2 || r.TmpDir != "/tmp" {
		t.Fatalf("Resources(64, 2, /tmp) = %+v, %v", r, err)
	}
	// The largest limit still fits in bytes; one more would overflow.
	if r, err := Resources(MaxMemLimitMiB, 0, ""); err != nil || r.MemLimit <= 0 {
		t.Fatalf("Resources(MaxMemLimitMiB) = %+v, %v", r, err)
	}
	for _, c := range []struct {
		mem, threads int64
		flag         string
	}{{0, 0, "--mem-limit-mib 0: give at least 1"}, {-5, 0, "--mem-limit-mib -5"}, {MaxMemLimitMiB + 1, 0, "give at most"},
		{1 << 44, 0, "give at most"}, {64, -1, "--threads -1"}, {64, MaxThreads + 1, "--threads 1025: give at most 1024"},
		{64, 100_000, "--threads 100000"}} {
		if _, err := Resources(c.mem, c.threads, ""); err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("Resources(%d, %d) = %v, want %q", c.mem, c.threads, err, c.flag)
		}
	}
}
