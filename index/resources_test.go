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

// TestWriteShapeBudget: the index writer writes 4 MiB at a time from a
// budget of 512 MiB (1 MiB under it), may make a sixty-fourth of the budget
// in buffers, 32 MiB at most, and all but writerFree of what it may make
// comes out of the sort's share.
func TestWriteShapeBudget(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  writerShape
		taken int64 // from the sort's share
	}{
		{32 << 20, writerShape{smallWrite, 4, 4}, 0},
		{256 << 20, writerShape{smallWrite, 4, 4}, 0},
		{511 << 20, writerShape{smallWrite, 4, 7}, 3 << 20},
		{512 << 20, writerShape{bigWrite, 2, 2}, 4 << 20},
		{0, writerShape{bigWrite, 2, 4}, 12 << 20},
		{1 << 30, writerShape{bigWrite, 2, 4}, 12 << 20},
		{4 << 30, writerShape{bigWrite, 2, 8}, 28 << 20},
		{64 << 30, writerShape{bigWrite, 2, 8}, 28 << 20},
	} {
		r := Resources{MemLimit: c.limit, Threads: 1}
		got := r.writeShape()
		if got != c.want {
			t.Errorf("limit %d: writer %+v, want %+v", c.limit, got, c.want)
		}
		limit := c.limit
		if limit == 0 {
			limit = 1 << 30
		}
		if bytes := int64(got.ceiling * got.size); bytes > max(limit/64, writerFree) {
			t.Errorf("limit %d: the writer may make %d bytes of buffers, more than a sixty-fourth of the budget", c.limit, bytes)
		}
		_, so := r.plan("x.csvidx", got, 1<<30)
		if so.MemLimit != limit-c.taken {
			t.Errorf("limit %d: the sort's share is %d, want %d", c.limit, so.MemLimit, limit-c.taken)
		}
		if outside := int64(got.ceiling*got.size) - (limit - so.MemLimit); outside > writerFree {
			t.Errorf("limit %d: %d bytes of write buffers outside the budget, more than %d", c.limit, outside, writerFree)
		}
		if _, so := r.plan("x.csvidx", writerShape{}, 1<<30); so.MemLimit != limit { // verify writes no pages
			t.Errorf("limit %d: without a writer the sort's share is %d, want the whole budget", c.limit, so.MemLimit)
		}
	}
}
