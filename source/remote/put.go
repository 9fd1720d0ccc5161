package remote

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// A Precondition says what a PUT may replace: nothing (IfNoneMatch: a new
// index never overwrites one another writer put there first), or the
// version whose ETag is IfMatch; the zero Precondition replaces anything.
type Precondition struct {
	IfNoneMatch bool
	IfMatch     string
}

// Put writes size bytes of body as the object at url, if cond holds, and
// returns the new object's ETag. A PUT is one request: the object is there
// whole or not at all. A cond that does not hold is ErrChanged; a 503 or
// 429, which says the request was not carried out, is tried again.
func (c *Client) Put(ctx context.Context, url string, body io.ReaderAt, size int64, cond Precondition) (string, error) {
	for try := 0; ; try++ {
		req, err := c.request(ctx, http.MethodPut, url, io.NewSectionReader(body, 0, size))
		if err != nil {
			return "", err
		}
		req.ContentLength = size
		switch {
		case cond.IfNoneMatch:
			req.Header.Set("If-None-Match", "*")
		case cond.IfMatch != "":
			req.Header.Set("If-Match", cond.IfMatch)
		}
		c.Stats.Requests.Add(1)
		c.Stats.RoundTrips.Add(1)
		resp, err := c.send(req, url)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("%s: %w", url, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		switch code := resp.StatusCode; {
		case code >= 200 && code < 300:
			return resp.Header.Get("ETag"), nil
		case code == http.StatusPreconditionFailed, code == http.StatusConflict:
			if cond.IfNoneMatch {
				return "", fmt.Errorf("%s: %w (another writer put one there first)", url, ErrChanged)
			}
			return "", fmt.Errorf("%s: %w (it is no longer %s)", url, ErrChanged, cond.IfMatch)
		case (code == http.StatusServiceUnavailable || code == http.StatusTooManyRequests) && try < c.retries():
			c.Stats.Retries.Add(1)
			if err := sleep(ctx, c.pause(try, resp.Header.Get("Retry-After"))); err != nil {
				return "", err
			}
		default:
			return "", &StatusError{url, code, reasonOf(body)}
		}
	}
}
