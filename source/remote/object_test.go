package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/remote/remotetest"
)

// testData returns n bytes that differ from offset to offset.
func testData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// open opens the object at name on s with a client of no pause between
// tries.
func open(t *testing.T, s *remotetest.Server, name string, c *Client) (*Object, []byte) {
	t.Helper()
	if c.Backoff == 0 {
		c.Backoff = time.Millisecond
	}
	o, head, err := c.Open(context.Background(), s.URLOf(name), 100)
	if err != nil {
		t.Fatal(err)
	}
	return o, head
}

// TestReadRanges: ranges at random read the object's bytes (fewer at its
// end, none past it), in one round trip whose GETs are the ranges
// coalesced across the gap, each but the first with If-Match on the
// object's ETag.
func TestReadRanges(t *testing.T) {
	s := remotetest.NewServer(t)
	data := testData(1<<20, 1)
	s.Put("a.csv", data)
	c := &Client{Gap: 1000}
	o, head := open(t, s, "a.csv", c)
	if o.Size() != int64(len(data)) || !bytes.Equal(head, data[:100]) {
		t.Fatalf("Open: size %d, head %d bytes", o.Size(), len(head))
	}
	if etag, weak := o.ETag(); etag != s.ETagOf(data) || weak {
		t.Fatalf("ETag() = %s, %v", etag, weak)
	}
	r := rand.New(rand.NewPCG(2, 2))
	for round := range 20 {
		rs := make([]Range, 1+r.IntN(30))
		for i := range rs {
			rs[i] = Range{r.Int64N(int64(len(data)) + 1), r.Int64N(5000)}
		}
		before := s.Requests.Load()
		trips := c.Stats.RoundTrips.Load()
		got, err := o.ReadRanges(context.Background(), rs)
		if err != nil {
			t.Fatal(err)
		}
		for i, rg := range rs {
			want := data[rg.Off:min(int64(len(data)), rg.Off+rg.Len)]
			if !bytes.Equal(got[i], want) {
				t.Fatalf("round %d: range %d (%d bytes at %d): %d bytes, not the object's", round, i, rg.Len, rg.Off, len(got[i]))
			}
		}
		spans, _ := o.spans(rs)
		if n := s.Requests.Load() - before; n != int64(len(spans)) || c.Stats.RoundTrips.Load()-trips != 1 {
			t.Fatalf("round %d: %d GETs for %d ranges coalesced into %d, %d round trips", round, n, len(rs), len(spans), c.Stats.RoundTrips.Load()-trips)
		}
	}
	seen := s.Seen()
	if seen[0].Get("If-Match") != "" || seen[len(seen)-1].Get("If-Match") != s.ETagOf(data) {
		t.Errorf("If-Match: %q on the first GET, %q on the last", seen[0].Get("If-Match"), seen[len(seen)-1].Get("If-Match"))
	}
	// Ranges within the gap of each other are one GET.
	before := s.Requests.Load()
	if _, err := o.ReadRanges(context.Background(), []Range{{5000, 10}, {100, 10}, {1100, 3000}, {4500, 10}}); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests.Load() - before; n != 1 {
		t.Errorf("4 ranges within 1000 bytes of each other: %d GETs, want 1", n)
	}
}

// TestChanged: an object replaced after it was opened is ErrChanged, never
// its new bytes: by If-Match (412), or, from a server that ignores
// If-Match, by its other ETag or size; a range it no longer has is
// ErrChanged too (416).
func TestChanged(t *testing.T) {
	data := testData(100000, 3)
	other := bytes.Clone(data)
	other[500] ^= 1
	for _, c := range []struct {
		name        string
		ignoreMatch bool
		now         []byte
	}{
		{"IfMatch", false, other},
		{"ETag", true, other},
		{"Shorter", true, data[:50000]},
		{"Longer", true, append(bytes.Clone(data), 'x')},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := remotetest.NewServer(t)
			s.IgnoreIfMatch = c.ignoreMatch
			s.Put("a", data)
			o, _ := open(t, s, "a", &Client{})
			s.Put("a", c.now)
			_, err := o.ReadRanges(context.Background(), []Range{{400, 200}, {60000, 10}})
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("ReadRanges after the object changed: %v, want ErrChanged", err)
			}
		})
	}
	// Replaced between the GETs of one read (the first GET answered, the
	// object replaced before the second): the read is ErrChanged.
	s := remotetest.NewServer(t)
	s.Put("a", data)
	o, _ := open(t, s, "a", &Client{Parallel: 1, Gap: -1})
	s.Inject(func(http.ResponseWriter, *http.Request, []byte) bool { return false }, s.Replace("a", other))
	if _, err := o.ReadRanges(context.Background(), []Range{{0, 10}, {90000, 10}}); !errors.Is(err, ErrChanged) {
		t.Fatalf("replaced between two GETs of a read: %v, want ErrChanged", err)
	}
}

// TestRetries: 503 and 429 answers (with Retry-After, in seconds or as a
// date, or without), a connection refused and a body cut short are tried
// again, and the bytes are the object's; past the retries, the last
// answer is the error.
func TestRetries(t *testing.T) {
	data := testData(300000, 4)
	s := remotetest.NewServer(t)
	s.Put("a", data)
	c := &Client{}
	o, _ := open(t, s, "a", c)
	s.Inject(remotetest.Status(503, "0"), remotetest.Status(429, ""), remotetest.CutBody(1000),
		remotetest.Status(503, time.Now().Add(-time.Second).UTC().Format(http.TimeFormat)))
	got, err := o.ReadRanges(context.Background(), []Range{{1000, 200000}})
	if err != nil || !bytes.Equal(got[0], data[1000:201000]) {
		t.Fatalf("ReadRanges through 4 faults: %v", err)
	}
	if n := c.Stats.Retries.Load(); n != 4 {
		t.Errorf("%d retries, want 4", n)
	}
	seen := s.Seen()
	if last := seen[len(seen)-1].Get("Range"); last != "bytes=2000-200999" {
		t.Errorf("after a body cut after 1000 bytes, the retry asked for %s, want the rest", last)
	}

	c.Retries = 2
	s.Inject(remotetest.Status(503, "0"), remotetest.Status(503, "0"), remotetest.Status(503, "0"))
	var se *StatusError
	if _, err := o.ReadRanges(context.Background(), []Range{{0, 10}}); !errors.As(err, &se) || se.Code != 503 {
		t.Errorf("past the retries: %v, want the 503", err)
	}
}

// TestAnswersNotAsked: a 200 to a range request and a Content-Range other
// than the range asked are errors that say so; a 200 to the first read
// of an object no longer than it is the object.
func TestAnswersNotAsked(t *testing.T) {
	data := testData(5000, 5)
	s := remotetest.NewServer(t)
	s.Put("a", data)
	o, _ := open(t, s, "a", &Client{})
	s.Inject(remotetest.IgnoreRange())
	if _, err := o.ReadRanges(context.Background(), []Range{{10, 10}}); err == nil || !strings.Contains(err.Error(), "ignores byte ranges") {
		t.Errorf("a 200 to a range request: %v", err)
	}
	s.Inject(remotetest.WrongRange(3))
	if _, err := o.ReadRanges(context.Background(), []Range{{10, 10}}); err == nil || !strings.Contains(err.Error(), "Content-Range") {
		t.Errorf("a wrong Content-Range: %v", err)
	}
	s.Inject(remotetest.IgnoreRange())
	c := &Client{}
	whole, head, err := c.Open(context.Background(), s.URLOf("a"), 10000)
	if err != nil || whole.Size() != int64(len(data)) || !bytes.Equal(head, data) {
		t.Errorf("a 200 to a first read of 10000 bytes of a 5000-byte object: %v", err)
	}
	s.Inject(remotetest.IgnoreRange())
	if _, _, err := c.Open(context.Background(), s.URLOf("a"), 100); err == nil {
		t.Errorf("a 200 to a first read of 100 bytes of a 5000-byte object: no error")
	}
}

// TestStatusErrors: 404 and 403 are one-line errors at once, not tried
// again; an empty object opens with no bytes; a weak ETag is not sent in
// If-Match; a host that does not resolve is not tried again.
func TestStatusErrors(t *testing.T) {
	s := remotetest.NewServer(t)
	s.Put("empty", nil)
	c := &Client{Backoff: time.Millisecond}
	_, _, err := c.Open(context.Background(), s.URLOf("missing"), 100)
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 404 || !strings.Contains(err.Error(), "no such object (HTTP 404, NoSuchKey)") || c.Stats.Requests.Load() != 1 {
		t.Errorf("a missing object: %v, after %d requests", err, c.Stats.Requests.Load())
	}
	s.Inject(remotetest.Status(403, ""))
	if _, _, err := c.Open(context.Background(), s.URLOf("empty"), 100); !errors.As(err, &se) || se.Code != 403 || !strings.Contains(err.Error(), "access denied") {
		t.Errorf("403: %v", err)
	}
	o, head, err := c.Open(context.Background(), s.URLOf("empty"), 100)
	if err != nil || o.Size() != 0 || len(head) != 0 {
		t.Errorf("an empty object: %v, size %v", err, o)
	}

	s.WeakETags = true
	s.Put("w", testData(1000, 6))
	w, _, err := c.Open(context.Background(), s.URLOf("w"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, weak := w.ETag(); !weak {
		t.Errorf("the ETag %v is not weak", w)
	}
	if _, err := w.ReadRanges(context.Background(), []Range{{500, 10}}); err != nil {
		t.Fatal(err)
	}
	if seen := s.Seen(); seen[len(seen)-1].Get("If-Match") != "" {
		t.Errorf("a weak ETag was sent in If-Match")
	}

	d := &Client{Backoff: time.Millisecond}
	if _, _, err := d.Open(context.Background(), "http://csvidx-test.invalid/a.csv", 10); err == nil || d.Stats.Requests.Load() != 1 {
		t.Errorf("a host that does not resolve: %v, after %d requests", err, d.Stats.Requests.Load())
	}
}

// TestRoundTrips: a call of many ranges far apart is one round trip, its
// GETs sent at once (with a delay per request, the server sees them
// together).
func TestRoundTrips(t *testing.T) {
	s := remotetest.NewServer(t)
	s.Delay = 30 * time.Millisecond
	data := testData(1<<20, 8)
	s.Put("a", data)
	c := &Client{Gap: -1, Parallel: 8}
	o, _ := open(t, s, "a", c)
	rs := make([]Range, 8)
	for i := range rs {
		rs[i] = Range{int64(i) * 100000, 100}
	}
	if _, err := o.ReadRanges(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
	if n := s.MostAtOnce.Load(); n < 2 {
		t.Errorf("8 GETs of one call: at most %d at once", n)
	}
	if n := c.Stats.RoundTrips.Load(); n != 2 {
		t.Errorf("%d round trips, want 2 (the open and the read)", n)
	}
}

// TestSource: an object opened through source.Open (the opener this
// package registers) reads as its bytes; a lookup's rows asked for first
// (Prefetch) come in one round trip, and their reads, from the byte
// before each, in none; reads in small pieces of a range cost one GET; a
// read past the end is io.EOF.
func TestSource(t *testing.T) {
	s := remotetest.NewServer(t)
	data := testData(2<<20, 9)
	s.Put("a.csv", data)
	src, err := source.Open(s.URLOf("a.csv"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rs, ok := src.(*Source)
	if !ok || src.Size() != int64(len(data)) || src.Identity().ETag != s.ETagOf(data) {
		t.Fatalf("source.Open gave a %T of %d bytes, identity %+v", src, src.Size(), src.Identity())
	}
	ctx := context.Background()
	offs := []int64{1 << 20, 200000, 1500000, 700000} // past the head
	before := s.Requests.Load()
	rs.Prefetch(offs)
	trips := DefaultClient.Stats.RoundTrips.Load()
	for _, off := range offs {
		p := make([]byte, 1024)
		if n, err := src.ReadAt(ctx, p, off-1); err != nil || !bytes.Equal(p[:n], data[off-1:off-1+1024]) {
			t.Fatalf("ReadAt(%d) = %d, %v", off-1, n, err)
		}
	}
	if n := DefaultClient.Stats.RoundTrips.Load() - trips; n != 0 {
		t.Errorf("the rows prefetched took %d more round trips", n)
	}
	if n := s.Requests.Load() - before; n != 4 {
		t.Errorf("Prefetch of 4 rows far apart: %d GETs", n)
	}
	before = s.Requests.Load()
	for off := int64(300000); off < 300000+64<<10; off += 16 << 10 {
		p := make([]byte, 16<<10)
		if n, err := src.ReadAt(ctx, p, off); err != nil || !bytes.Equal(p[:n], data[off:off+int64(n)]) {
			t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
		}
	}
	if n := s.Requests.Load() - before; n != 1 {
		t.Errorf("64 KiB read in 4 pieces: %d GETs, want 1", n)
	}
	p := make([]byte, 100)
	if n, err := src.ReadAt(ctx, p, int64(len(data))-10); n != 10 || err != io.EOF || !bytes.Equal(p[:n], data[len(data)-10:]) {
		t.Errorf("a read across the end: %d, %v", n, err)
	}
	// A read across the head's end reads only what follows the head.
	p = make([]byte, 200)
	if n, err := src.ReadAt(ctx, p, sourceHead-100); err != nil || !bytes.Equal(p[:n], data[sourceHead-100:sourceHead+100]) {
		t.Fatalf("a read across the head's end: %d, %v", n, err)
	}
	if seen := s.Seen(); !strings.HasPrefix(seen[len(seen)-1].Get("Range"), fmt.Sprintf("bytes=%d-", sourceHead)) {
		t.Errorf("a read across the head's end asked for %s", seen[len(seen)-1].Get("Range"))
	}
}

// TestOpenAll: objects opened at once take one round trip; a suffix is
// the object's last bytes, and where they start (all of them when the
// object is shorter); Whole reads all; a missing object fails alone; a
// suffix cut short is read on from where it stopped.
func TestOpenAll(t *testing.T) {
	s := remotetest.NewServer(t)
	data := testData(200000, 10)
	s.Put("a", data)
	s.Put("small", data[:100])
	c := &Client{Backoff: time.Millisecond}
	got := c.OpenAll(context.Background(), []Fetch{
		{URL: s.URLOf("a"), N: 1000},
		{URL: s.URLOf("a"), N: 5000, Suffix: true},
		{URL: s.URLOf("small"), N: 5000, Suffix: true},
		{URL: s.URLOf("a"), N: Whole},
		{URL: s.URLOf("missing"), N: Whole},
	})
	if n := c.Stats.RoundTrips.Load(); n != 1 {
		t.Errorf("%d round trips", n)
	}
	for i, want := range []struct {
		at   int64
		data []byte
	}{{0, data[:1000]}, {195000, data[195000:]}, {0, data[:100]}, {0, data}} {
		if f := got[i]; f.Err != nil || f.At != want.at || !bytes.Equal(f.Bytes, want.data) {
			t.Errorf("fetch %d: at %d, %d bytes, %v; want at %d, %d bytes", i, f.At, len(f.Bytes), f.Err, want.at, len(want.data))
		}
	}
	var se *StatusError
	if !errors.As(got[4].Err, &se) || se.Code != 404 {
		t.Errorf("a missing object: %v", got[4].Err)
	}
	s.Inject(remotetest.CutBody(1000))
	got = c.OpenAll(context.Background(), []Fetch{{URL: s.URLOf("a"), N: 5000, Suffix: true}})
	if f := got[0]; f.Err != nil || f.At != 195000 || !bytes.Equal(f.Bytes, data[195000:]) || c.Stats.Retries.Load() != 1 {
		t.Errorf("a suffix cut after 1000 bytes: at %d, %d bytes, %v, after %d retries", f.At, len(f.Bytes), f.Err, c.Stats.Retries.Load())
	}
	if seen := s.Seen(); seen[len(seen)-1].Get("Range") != "bytes=196000-199999" {
		t.Errorf("the retry of the suffix asked for %s", seen[len(seen)-1].Get("Range"))
	}
}

// TestReadAhead: a scan's windows (reads of a megabyte or more) read the
// object's bytes, at any offsets, through blocks of a fixed grid, the
// next blocks asked for with each window's, several at once; a window past
// the end is io.EOF with the bytes there are.
func TestReadAhead(t *testing.T) {
	s := remotetest.NewServer(t)
	s.Delay = 5 * time.Millisecond
	data := testData(30<<20+12345, 13)
	s.Put("big.csv", data)
	c := &Client{}
	src, err := c.OpenSource(context.Background(), s.URLOf("big.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	const window = 3 << 20
	for off := int64(0); off < int64(len(data)); off += window {
		p := make([]byte, window)
		n, err := src.ReadAt(ctx, p, off)
		want := data[off:min(int64(len(data)), off+window)]
		if n != len(want) || !bytes.Equal(p[:n], want) || (n < len(p)) != (err == io.EOF) {
			t.Fatalf("window at %d: %d bytes, %v", off, n, err)
		}
	}
	if n := s.MostAtOnce.Load(); n < 2 {
		t.Errorf("the windows' blocks were asked for %d at a time", n)
	}
	for _, h := range s.Seen()[1:] {
		var a, b int64
		if _, err := fmt.Sscanf(h.Get("Range"), "bytes=%d-%d", &a, &b); err != nil || a%(4<<20) != 0 {
			t.Fatalf("a block read at %s, off the grid", h.Get("Range"))
		}
	}
	r := rand.New(rand.NewPCG(14, 14))
	for range 20 {
		off := r.Int64N(int64(len(data)))
		p := make([]byte, 1<<20+r.IntN(4<<20))
		n, err := src.ReadAt(ctx, p, off)
		want := data[off:min(int64(len(data)), off+int64(len(p)))]
		if n != len(want) || !bytes.Equal(p[:n], want) || (n < len(p)) != (err == io.EOF) {
			t.Fatalf("%d bytes at %d: %d, %v", len(p), off, n, err)
		}
	}
}

// TestReadAheadReuse: windows read by several workers at once, each front
// to back through its own part of an object of more blocks than are kept,
// so that blocks are dropped and their buffers reused while other workers
// read theirs, read the object's bytes.
func TestReadAheadReuse(t *testing.T) {
	s := remotetest.NewServer(t)
	data := testData((aheadKeep+6)*aheadBlock+12345, 15)
	s.Put("big.csv", data)
	src, err := (&Client{}).OpenSource(context.Background(), s.URLOf("big.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.WillScan()
	const workers = 4
	part := int64(len(data)) / workers
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range int64(workers) {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(16, uint64(w)))
			for off := w * part; off < min((w+1)*part, int64(len(data))); {
				p := make([]byte, scanPiece+r.IntN(3<<20))
				n, err := src.ReadAt(context.Background(), p, off)
				want := data[off:min(int64(len(data)), off+int64(len(p)))]
				if n != len(want) || !bytes.Equal(p[:n], want) || (n < len(p)) != (err == io.EOF) {
					errs[w] = fmt.Errorf("worker %d: %d bytes at %d: %d, %v", w, len(p), off, n, err)
					return
				}
				off += int64(n) - int64(r.IntN(n)/8) // a window overlaps the one before a little, as a scan's do
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
