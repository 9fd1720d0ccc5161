package index

import (
	"errors"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// failingPacker counts the records it takes and fails after limit batches.
type failingPacker struct {
	batches, limit int
	records        int
	finished       bool
}

var errPacker = errors.New("packer failed")

func (f *failingPacker) addBatch(recs []sorter.Record) error {
	if f.batches++; f.batches > f.limit {
		return errPacker
	}
	f.records += len(recs)
	return nil
}

func (f *failingPacker) finish(*header) error { f.finished = true; return nil }

// TestAsyncPacker: the packer gets every batch, copied, in order; a
// packer's error comes back from a later addBatch or from finish, and
// finish is not called on the packer then; stop ends the goroutine even
// before a batch came.
func TestAsyncPacker(t *testing.T) {
	batch := make([]sorter.Record, 100)
	ok := &failingPacker{limit: 1 << 30}
	a := newAsyncPacker(ok)
	for range 50 {
		if err := a.addBatch(batch); err != nil {
			t.Fatal(err)
		}
		batch[0].Offset++ // the packer has its own copy
	}
	if err := a.finish(&header{}); err != nil || ok.records != 5000 || !ok.finished {
		t.Fatalf("finish = %v after %d records (finished %v), want nil after 5000", err, ok.records, ok.finished)
	}
	bad := &failingPacker{limit: 3}
	a = newAsyncPacker(bad)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		err = a.addBatch(batch)
	}
	if err = a.finish(&header{}); !errors.Is(err, errPacker) || bad.finished {
		t.Fatalf("finish after a failure = %v (packer finished %v), want errPacker", err, bad.finished)
	}
	if err := newAsyncPacker(ok).stop(); err != nil {
		t.Fatalf("stop before any batch = %v", err)
	}
}
