package remote

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// A Client reads objects by byte ranges (see the package documentation).
// Its zero value reads with http.DefaultClient and the defaults below; set
// its fields before its first use, and not after.
type Client struct {
	// HTTP sends the requests; nil for http.DefaultClient.
	HTTP *http.Client
	// Sign, when set, signs each request before it is sent (S3's SigV4).
	Sign func(*http.Request) error
	// Resolve, when set, returns the HTTP URL that requests of an object's
	// URL go to (an s3:// URL's bucket and key, at S3's endpoint). Objects
	// keep the URL they were opened by, for messages.
	Resolve func(url string) (string, error)
	// Retries is how many times a request is tried again after a 5xx or
	// 429 answer, a connection that fails or a body cut short; 0 for
	// DefaultRetries, a negative number for none.
	Retries int
	// Parallel is how many GETs of one call run at once; 0 for
	// DefaultParallel.
	Parallel int
	// Gap coalesces ranges: two whose bytes are closer than Gap are read
	// by one GET, with the bytes between them; 0 for DefaultGap, a
	// negative number for none.
	Gap int64
	// Backoff is the pause before the first retry when the server gives no
	// Retry-After; it doubles at each retry. 0 for DefaultBackoff.
	Backoff time.Duration
	// MaxWait caps a pause, whatever Retry-After says; 0 for DefaultMaxWait.
	MaxWait time.Duration
	// Stats counts what the client did.
	Stats Stats
}

// The defaults of a Client's fields.
const (
	DefaultRetries  = 4
	DefaultParallel = 64
	DefaultGap      = 64 << 10
	DefaultBackoff  = 100 * time.Millisecond
	DefaultMaxWait  = 30 * time.Second
)

// Stats counts a client's requests, round trips (a call whose GETs run at
// once is one), bytes of bodies read and retries. Its fields are safe for
// concurrent use.
type Stats struct {
	Requests   atomic.Int64
	RoundTrips atomic.Int64
	Bytes      atomic.Int64
	Retries    atomic.Int64
}

func (c *Client) http() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

func (c *Client) retries() int {
	switch {
	case c.Retries < 0:
		return 0
	case c.Retries == 0:
		return DefaultRetries
	}
	return c.Retries
}

func (c *Client) parallel() int {
	if c.Parallel <= 0 {
		return DefaultParallel
	}
	return c.Parallel
}

func (c *Client) gap() int64 {
	switch {
	case c.Gap < 0:
		return 0
	case c.Gap == 0:
		return DefaultGap
	}
	return c.Gap
}

// pause returns how long to wait before retry number n (from 0), after an
// answer whose Retry-After header is retryAfter ("" when none).
func (c *Client) pause(n int, retryAfter string) time.Duration {
	wait, ok := parseRetryAfter(retryAfter, time.Now())
	if !ok {
		wait = c.Backoff
		if wait <= 0 {
			wait = DefaultBackoff
		}
		wait <<= min(n, 16)
	}
	limit := c.MaxWait
	if limit <= 0 {
		limit = DefaultMaxWait
	}
	return min(wait, limit)
}

// sleep waits for d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// request returns a request of method for the object at url, to the HTTP
// URL Resolve gives it.
func (c *Client) request(ctx context.Context, method, url string, body io.Reader) (*http.Request, error) {
	target := url
	if c.Resolve != nil {
		var err error
		if target, err = c.Resolve(url); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return req, nil
}

// send signs req (see Sign), once its headers are set, and sends it; url
// names the object in errors.
func (c *Client) send(req *http.Request, url string) (*http.Response, error) {
	if c.Sign != nil {
		if err := c.Sign(req); err != nil {
			return nil, fmt.Errorf("%s: signing the request: %w", url, err)
		}
	}
	return c.http().Do(req)
}
