package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// An Object is one version of a remote object, as Open found it: its
// size and ETag. Its reads return bytes of that version only.
type Object struct {
	c    *Client
	url  string
	size int64
	etag string // as the server gave it, quotes included; "" when none
	weak bool   // etag is weak (W/"..."): it identifies, but If-Match cannot use it
}

// Open opens the object at url with a first GET of its first head bytes
// (at least 1), which it returns with the object: its size and ETag come
// from that answer. An empty object has no bytes to return.
func (c *Client) Open(ctx context.Context, url string, head int64) (*Object, []byte, error) {
	o := &Object{c: c, url: url, size: -1}
	c.Stats.RoundTrips.Add(1)
	b, _, err := o.get(ctx, 0, max(head, 1), nil)
	if err != nil {
		return nil, nil, err
	}
	return o, b, nil
}

// URL returns the object's URL.
func (o *Object) URL() string { return o.url }

// Size returns the object's size.
func (o *Object) Size() int64 { return o.size }

// ETag returns the object's ETag as the server gave it ("" when none),
// and whether it is weak.
func (o *Object) ETag() (etag string, weak bool) { return o.etag, o.weak }

// get reads the object's bytes [off, off+n), fewer at its end, by one GET
// (more when it is tried again, from where the last one stopped). The
// first get of an object, which Open makes, sets its size and ETag. An off
// of suffix asks for the last n bytes (fewer when the object is shorter),
// and at says where they start.
func (o *Object) get(ctx context.Context, off, n int64, into []byte) (b []byte, at int64, err error) {
	var buf []byte
	for try := 0; ; try++ {
		from, want := off, n-int64(len(buf))
		if off != suffix {
			from += int64(len(buf))
		}
		got, first, done, retryAfter, err := o.getOnce(ctx, from, want, into)
		into = nil
		if off == suffix && len(buf) == 0 && len(got) > 0 {
			off, n = first, o.size-first // the rest is an ordinary range
		}
		if buf == nil {
			buf = got // the usual case, one try: no copy
		} else {
			buf = append(buf, got...)
		}
		if done {
			return buf, off, err
		}
		if try >= o.c.retries() {
			return nil, 0, err
		}
		o.c.Stats.Retries.Add(1)
		if err := sleep(ctx, o.c.pause(try, retryAfter)); err != nil {
			return nil, 0, err
		}
	}
}

// suffix is get's offset for the last bytes of an object.
const suffix = -1

// getOnce sends one GET of the bytes [off, off+n), or of the last n when
// off is suffix, and reads its body: b, whose first byte is the object's
// byte first. done is false when the request is to be tried again, for the
// bytes after b, after retryAfter (the server's Retry-After) when it is not
// empty; err then says why, for when there are no tries left.
func (o *Object) getOnce(ctx context.Context, off, n int64, into []byte) (b []byte, first int64, done bool, retryAfter string, err error) {
	if o.size >= 0 && n <= 0 {
		return nil, off, true, "", nil
	}
	req, err := o.c.request(ctx, http.MethodGet, o.url, nil)
	if err != nil {
		return nil, 0, true, "", err
	}
	if off == suffix {
		req.Header.Set("Range", fmt.Sprintf("bytes=-%d", n))
	} else {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	if o.etag != "" && !o.weak {
		req.Header.Set("If-Match", o.etag)
	}
	o.c.Stats.Requests.Add(1)
	resp, err := o.c.send(req, o.url)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, true, "", ctx.Err()
		}
		return nil, 0, !transient(err), "", fmt.Errorf("%s: %w", o.url, err)
	}
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusPartialContent:
	case code == http.StatusOK:
		// A server that ignores ranges sends the whole object: take it
		// only when that is what was asked for, a first read of an
		// object no longer than it.
		if o.size >= 0 || resp.ContentLength < 0 || resp.ContentLength > n {
			return nil, 0, true, "", &StatusError{o.url, code, "the server ignores byte ranges (it answered a range request with the whole object): download the file"}
		}
		b, done, retryAfter, err := o.readWhole(resp)
		return b, 0, done, retryAfter, err
	case code == http.StatusPreconditionFailed:
		return nil, 0, true, "", fmt.Errorf("%s: %w (If-Match %s failed)", o.url, ErrChanged, o.etag)
	case code == http.StatusRequestedRangeNotSatisfiable:
		if o.size < 0 && (off == 0 || off == suffix) && emptyObject(resp.Header.Get("Content-Range")) {
			o.size = 0
			o.etag, o.weak = etagOf(resp.Header.Get("ETag"))
			return nil, 0, true, "", nil
		}
		return nil, 0, true, "", fmt.Errorf("%s: %w (it no longer has bytes %d-%d)", o.url, ErrChanged, off, off+n-1)
	case retryable(code):
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, 0, false, resp.Header.Get("Retry-After"), &StatusError{o.url, code, reasonOf(body)}
	default:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, 0, true, "", &StatusError{o.url, code, reasonOf(body)}
	}
	first, last, total, err := parseContentRange(resp.Header.Get("Content-Range"))
	if err == nil && o.size >= 0 && total != o.size {
		return nil, 0, true, "", fmt.Errorf("%s: %w (its size is %d, not %d)", o.url, ErrChanged, total, o.size)
	}
	want := off // the first byte asked for
	if off == suffix {
		want = max(0, total-n)
	}
	if err != nil || first != want || last >= want+n || (last < want+n-1 && last != total-1) {
		return nil, 0, true, "", &StatusError{o.url, resp.StatusCode, fmt.Sprintf("Content-Range %q for a request of %s", resp.Header.Get("Content-Range"), req.Header.Get("Range"))}
	}
	etag, weak := etagOf(resp.Header.Get("ETag"))
	if o.size < 0 {
		o.size, o.etag, o.weak = total, etag, weak
	} else if etag != "" && o.etag != "" && etag != o.etag {
		return nil, 0, true, "", fmt.Errorf("%s: %w (its ETag is %s, not %s)", o.url, ErrChanged, etag, o.etag)
	}
	if size := last - first + 1; int64(cap(into)) >= size {
		b = into[:size]
	} else {
		b = make([]byte, size)
	}
	k, err := io.ReadFull(resp.Body, b)
	o.c.Stats.Bytes.Add(int64(k))
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, true, "", ctx.Err()
		}
		return b[:k], first, false, "", fmt.Errorf("%s: the answer ended after %d of its %d bytes: %w", o.url, k, len(b), err)
	}
	return b, first, true, "", nil
}

// readWhole reads the body of a 200 answer to the first read of an
// object, the whole object, and sets the object's size and ETag.
func (o *Object) readWhole(resp *http.Response) ([]byte, bool, string, error) {
	b := make([]byte, resp.ContentLength)
	k, err := io.ReadFull(resp.Body, b)
	o.c.Stats.Bytes.Add(int64(k))
	if err != nil {
		return nil, false, "", fmt.Errorf("%s: the answer ended after %d of its %d bytes: %w", o.url, k, len(b), err)
	}
	o.size = resp.ContentLength
	o.etag, o.weak = etagOf(resp.Header.Get("ETag"))
	return b, true, "", nil
}

// etagOf returns the ETag in the header value v, and whether it is weak.
func etagOf(v string) (etag string, weak bool) {
	return v, strings.HasPrefix(v, "W/")
}

// parseContentRange parses a Content-Range header of a 206 answer:
// "bytes FIRST-LAST/TOTAL". A total of "*" is an error: an object of
// unknown size cannot be read by ranges.
func parseContentRange(v string) (first, last, total int64, err error) {
	rest, ok := strings.CutPrefix(v, "bytes ")
	span, size, ok2 := strings.Cut(rest, "/")
	a, b, ok3 := strings.Cut(span, "-")
	if !ok || !ok2 || !ok3 {
		return 0, 0, 0, fmt.Errorf("Content-Range %q", v)
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	total, err3 := strconv.ParseInt(size, 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil || first < 0 || last < first || total <= last {
		return 0, 0, 0, fmt.Errorf("Content-Range %q", v)
	}
	return first, last, total, nil
}

// emptyObject reports whether v, the Content-Range of a 416 answer, says
// the object is empty ("bytes */0").
func emptyObject(v string) bool { return v == "bytes */0" }

// transient reports whether err, from sending a request, may pass when it
// is sent again: not a host that does not resolve, a certificate that
// fails or a server that does not speak TLS, nor a URL no client sends.
func transient(err error) bool {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	switch {
	case errors.As(err, &dns):
		return dns.IsTemporary || dns.IsTimeout
	case errors.As(err, &cert), errors.As(err, &record):
		return false
	}
	return !strings.Contains(err.Error(), "unsupported protocol scheme")
}
