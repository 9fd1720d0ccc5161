package remote

import (
	"context"
	"math"
	"sync"
)

// A Fetch is an object for OpenAll to open, with the bytes to read of it.
type Fetch struct {
	URL string
	// N is how many bytes to read: from the start, or the last N when
	// Suffix is set; Whole for all of them.
	N      int64
	Suffix bool
}

// Whole is a Fetch's N for all of an object's bytes.
const Whole = math.MaxInt64 / 2

// A Fetched is what OpenAll did of a Fetch: the object opened and the
// bytes read, from offset At, or why not.
type Fetched struct {
	Object *Object
	Bytes  []byte
	At     int64
	Err    error
}

// OpenAll opens the objects of fs at once, in one round trip, reading the
// bytes each asks for, as Open does (a suffix of an object asks for its
// last bytes: a GET of "bytes=-N"). Each has its own error: one that is
// missing (a 404) does not stop the others.
func (c *Client) OpenAll(ctx context.Context, fs []Fetch) []Fetched {
	c.Stats.RoundTrips.Add(1)
	out := make([]Fetched, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Go(func() {
			o := &Object{c: c, url: f.URL, size: -1}
			off := int64(0)
			if f.Suffix {
				off = suffix
			}
			b, at, err := o.get(ctx, off, max(f.N, 1), nil)
			if err != nil {
				out[i] = Fetched{Err: err}
				return
			}
			out[i] = Fetched{Object: o, Bytes: b, At: at}
		})
	}
	wg.Wait()
	return out
}

// Known returns the object at url as a reader found it before (a cache
// keeps size and etag): no request is made until its first read, which,
// as every read, carries If-Match with etag, so that another version is
// ErrChanged, never read.
func (c *Client) Known(url string, size int64, etag string) *Object {
	o := &Object{c: c, url: url, size: size}
	o.etag, o.weak = etagOf(etag)
	return o
}

// NewSource returns the Source of o, whose first bytes, head, were read
// (by OpenAll or Open), with the bytes of pieces kept for its reads: other
// bytes read with it, from their offsets.
func NewSource(o *Object, head []byte, pieces map[int64][]byte) *Source {
	s := newSource(o, head)
	for off, b := range pieces {
		s.keep(off, b)
	}
	return s
}
