package remote

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// ErrChanged means the object is no longer the version that was opened:
// the server answered 412 to an If-Match on its ETag, or 416 to a range
// the opened object had, or gave another ETag or size.
var ErrChanged = errors.New("the object changed since it was opened")

// A StatusError is an answer that is not the one asked for and that no
// retry helps: 403, 404, a 200 to a range request, a Content-Range other
// than the range asked, or 5xx answers past the retries.
type StatusError struct {
	URL    string
	Code   int    // the HTTP status code
	Reason string // what is wrong, in a few words; S3's error code when it gives one
}

func (e *StatusError) Error() string {
	switch e.Code {
	case http.StatusForbidden, http.StatusUnauthorized:
		return fmt.Sprintf("%s: access denied (HTTP %d%s): check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE) and the object's permissions", e.URL, e.Code, e.reason())
	case http.StatusNotFound:
		return fmt.Sprintf("%s: no such object (HTTP 404%s)", e.URL, e.reason())
	}
	return fmt.Sprintf("%s: HTTP %d%s", e.URL, e.Code, e.reason())
}

func (e *StatusError) reason() string {
	if e.Reason == "" {
		return ""
	}
	return ", " + e.Reason
}

// s3Code finds the code of an S3 error document (<Code>NoSuchKey</Code>).
var s3Code = regexp.MustCompile(`<Code>([A-Za-z0-9.]{1,64})</Code>`)

// reasonOf returns the S3 error code body holds, or "".
func reasonOf(body []byte) string {
	if m := s3Code.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}

// retryable reports whether an answer of status code is tried again: a
// server error, or too many requests.
func retryable(code int) bool {
	return code >= 500 || code == http.StatusTooManyRequests
}

// parseRetryAfter returns the pause a Retry-After header asks for, in
// seconds or as a date, as of now; ok is false when v says none.
func parseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}
