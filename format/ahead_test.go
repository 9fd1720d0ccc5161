package format

import (
	"errors"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// countingStream hands out batches of consecutive records, reusing its
// buffer as a batchStream may, and fails after failAfter batches if set.
type countingStream struct {
	batches, size int
	failAfter     int
	made          int
	buf           []sorter.Record
	next          uint64
}

var errStream = errors.New("stream failed")

func (c *countingStream) Batch() ([]sorter.Record, error) {
	if c.failAfter > 0 && c.made == c.failAfter {
		return nil, errStream
	}
	if c.made == c.batches {
		return nil, nil
	}
	c.made++
	c.buf = c.buf[:0]
	for range c.size + c.made%7 {
		c.buf = append(c.buf, sorter.Record{Hash: c.next, Offset: c.next * 3})
		c.next++
	}
	return c.buf, nil
}

func drain(t *testing.T, s Batches) ([]sorter.Record, error) {
	t.Helper()
	var all []sorter.Record
	for {
		b, err := s.Batch()
		if err != nil || b == nil {
			return all, err
		}
		all = append(all, b...)
	}
}

func TestReadAheadSameRecords(t *testing.T) {
	for _, size := range []int{1, 1000, aheadBatchRecords - 3, aheadBatchRecords + 5} {
		want, err := drain(t, &countingStream{batches: 40, size: size})
		if err != nil {
			t.Fatal(err)
		}
		a := ReadAhead(&countingStream{batches: 40, size: size})
		got, err := drain(t, a)
		a.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("batches of %d: %d records ahead, %d read directly, or in another order", size, len(got), len(want))
		}
		if b, err := a.Batch(); b != nil || err != nil {
			t.Fatalf("after the end: %d records, %v", len(b), err)
		}
	}
}

func TestReadAheadError(t *testing.T) {
	a := ReadAhead(&countingStream{batches: 1000, size: 5000, failAfter: 100})
	defer a.Stop()
	got, err := drain(t, a)
	if !errors.Is(err, errStream) {
		t.Fatalf("error %v, want %v", err, errStream)
	}
	if len(got) == 0 || len(got) > 100*5010 {
		t.Fatalf("%d records before the error", len(got))
	}
}

// TestReadAheadStop stops a stream its reader has not finished, whose
// goroutine is blocked on a full hand-over; stop must return, twice.
func TestReadAheadStop(t *testing.T) {
	a := ReadAhead(&countingStream{batches: 1 << 20, size: 1000})
	if b, err := a.Batch(); err != nil || len(b) == 0 {
		t.Fatalf("first batch: %d records, %v", len(b), err)
	}
	a.Stop()
	a.Stop()
}
