package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// A Range is n bytes of an object from offset Off.
type Range struct {
	Off, Len int64
}

// ReadRanges reads the bytes of each range (fewer at the object's end) in
// one round trip: ranges closer than the client's gap are read by one GET,
// and the GETs run at once, the client's Parallel at a time. The first
// error stops the others.
func (o *Object) ReadRanges(ctx context.Context, rs []Range) ([][]byte, error) {
	spans, err := o.spans(rs)
	if err != nil {
		return nil, err
	}
	if len(spans) == 0 {
		return make([][]byte, len(rs)), nil
	}
	o.c.Stats.RoundTrips.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bufs := make([][]byte, len(spans))
	errs := make([]error, len(spans))
	sem := make(chan struct{}, o.c.parallel())
	var wg sync.WaitGroup
	for i, sp := range spans {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if bufs[i], _, errs[i] = o.get(ctx, sp.Off, sp.Len, nil); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	out := make([][]byte, len(rs))
	for i, r := range rs {
		j, _ := slices.BinarySearchFunc(spans, r.Off, func(sp Range, off int64) int {
			return cmp.Compare(sp.Off+sp.Len, off+1) // the first span that ends after off
		})
		if j == len(spans) || r.Len == 0 {
			continue
		}
		b := bufs[j]
		from := min(r.Off-spans[j].Off, int64(len(b)))
		out[i] = b[from:min(from+r.Len, int64(len(b)))]
	}
	return out, nil
}

// readInto reads the bytes [off, off+n) (fewer at the object's end) by
// one GET, into into's bytes when it holds them, in one round trip.
func (o *Object) readInto(ctx context.Context, off, n int64, into []byte) ([]byte, error) {
	if off < 0 || n < 0 || off > o.size {
		return nil, fmt.Errorf("%s: a read of %d bytes at %d, of an object of %d bytes", o.url, n, off, o.size)
	}
	o.c.Stats.RoundTrips.Add(1)
	b, _, err := o.get(ctx, off, min(n, o.size-off), into)
	return b, err
}

// spans returns the GETs that read rs: their ranges, clipped to the
// object, sorted and merged where closer than the client's gap.
func (o *Object) spans(rs []Range) ([]Range, error) {
	var spans []Range
	for _, r := range rs {
		if r.Off < 0 || r.Len < 0 || r.Off > o.size {
			return nil, fmt.Errorf("%s: a read of %d bytes at %d, of an object of %d bytes", o.url, r.Len, r.Off, o.size)
		}
		if n := min(r.Len, o.size-r.Off); n > 0 {
			spans = append(spans, Range{r.Off, n})
		}
	}
	slices.SortFunc(spans, func(a, b Range) int { return cmp.Compare(a.Off, b.Off) })
	gap := o.c.gap()
	merged := spans[:0]
	for _, sp := range spans {
		if k := len(merged); k > 0 && sp.Off <= merged[k-1].Off+merged[k-1].Len+gap {
			last := &merged[k-1]
			last.Len = max(last.Len, sp.Off+sp.Len-last.Off)
			continue
		}
		merged = append(merged, sp)
	}
	return merged, nil
}

// firstError returns the first of errs that is not nil, preferring one
// that is not a cancellation: the others were cancelled because of it.
func firstError(errs []error) error {
	var cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			cancelled = cmp.Or(cancelled, err)
		default:
			return err
		}
	}
	return cancelled
}
