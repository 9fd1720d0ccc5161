package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"
)

func TestResourcesValidate(t *testing.T) {
	for _, r := range []Resources{{}, {MemLimit: 1, Threads: 1}, {MemLimit: MaxMemLimit, Threads: MaxThreads}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v", r, err)
		}
	}
	for _, c := range []struct {
		r     Resources
		field string
		value int64
	}{
		{Resources{MemLimit: -1}, "MemLimit", -1},
		{Resources{MemLimit: MaxMemLimit + 1}, "MemLimit", MaxMemLimit + 1},
		{Resources{Threads: -1}, "Threads", -1},
		{Resources{Threads: MaxThreads + 1}, "Threads", MaxThreads + 1},
	} {
		var re *RangeError
		if err := c.r.Validate(); !errors.As(err, &re) || re.Field != c.field || re.Value != c.value {
			t.Errorf("%+v.Validate() = %v, want a RangeError for %s = %d", c.r, err, c.field, c.value)
		}
	}
}

// Build, Update and Verify refuse resources out of range before they touch
// a file: no index appears.
func TestResourcesRefused(t *testing.T) {
	csv := writeCSV(t, "k,v\n1,a\n")
	bad := Resources{Threads: -1}
	var re *RangeError
	if _, err := Build(context.Background(), csv, &BuildOptions{Key: "k", Resources: bad}); !errors.As(err, &re) {
		t.Errorf("Build with Threads -1 = %v, want a RangeError", err)
	}
	if _, err := os.Stat(DefaultIndexPath(csv)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused build left an index: %v", err)
	}
	if _, err := Update(context.Background(), csv, &UpdateOptions{Resources: bad}); !errors.As(err, &re) {
		t.Errorf("Update with Threads -1 = %v, want a RangeError", err)
	}
	if _, err := Verify(context.Background(), csv, &VerifyOptions{Resources: bad}); !errors.As(err, &re) {
		t.Errorf("Verify with Threads -1 = %v, want a RangeError", err)
	}
}
