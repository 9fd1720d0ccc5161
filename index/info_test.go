package index

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestReadInfoAllBroken: a broken index among several is described as
// broken, with its error, and the others as ReadInfo describes them; its
// JSON says only what is known of it. Picked alone, it is an error.
func TestReadInfoAllBroken(t *testing.T) {
	p := writeCSV(t, "a,b,c\n1,2,3\n4,5,6\n")
	for _, key := range []string{"a", "b", "c,a"} {
		build(t, p, &BuildOptions{Key: key})
	}
	bad := nextTo(p).byPath([]int{1})
	f, err := os.OpenFile(bad, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0xff}, 100) // in the header page: its checksum fails
	f.Close()
	infos, err := ReadInfoAll(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 3 {
		t.Fatalf("%d infos, want 3", len(infos))
	}
	for i, info := range infos {
		want := "fresh"
		if i == 1 {
			want = "broken"
		}
		if info.State != want {
			t.Fatalf("index %s: state %q, want %q", info.IndexPath, info.State, want)
		}
	}
	b := infos[1]
	if b.IndexPath != bad || !errors.Is(b.BrokenError, ErrCorrupt) || !strings.Contains(b.Error, "corrupt") || b.Default {
		t.Fatalf("the broken index's info: %+v", b)
	}
	if !infos[0].Default || infos[0].Rows != 2 || infos[2].Rows != 2 {
		t.Fatalf("the sound indexes' infos: %+v, %+v", infos[0], infos[2])
	}
	j, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(j, &fields); err != nil {
		t.Fatal(err)
	}
	if len(fields) != 5 || fields["state"] != "broken" || fields["error"] != b.Error || fields["index"] != bad {
		t.Fatalf("the broken index's JSON: %s", j)
	}
	if j, _ := json.Marshal(infos[0]); !strings.Contains(string(j), `"rows":2`) || strings.Contains(string(j), `"error"`) {
		t.Fatalf("a sound index's JSON: %s", j)
	}
	if _, err := ReadInfoAll(p, &Options{IndexPath: bad}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("ReadInfoAll of the broken index alone: %v, want ErrCorrupt", err)
	}
}
