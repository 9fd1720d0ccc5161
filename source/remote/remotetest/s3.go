package remotetest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// An S3 serves S3's API on 127.0.0.1 (gofakes3, in memory, path-style),
// behind a wrapper that does what gofakes3 does not: it answers 412 to a
// GET whose If-Match is not the object's ETag, and to a PUT whose
// If-None-Match: * finds an object there, or whose If-Match is not the
// ETag of the one there. It counts requests and delays each.
type S3 struct {
	*httptest.Server
	Backend *s3mem.Backend
	// Delay is how long each request waits before it is answered.
	Delay time.Duration
	// Requests counts the requests answered.
	Requests atomic.Int64
	inner    http.Handler
}

// NewS3 starts an S3 with the buckets named, closed at the end of t.
func NewS3(t testing.TB, buckets ...string) *S3 {
	s := &S3{Backend: s3mem.New()}
	for _, b := range buckets {
		if err := s.Backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	s.inner = gofakes3.New(s.Backend).Server()
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *S3) serve(w http.ResponseWriter, r *http.Request) {
	time.Sleep(s.Delay)
	s.Requests.Add(1)
	etag, exists := s.etag(r)
	switch m := r.Header.Get("If-Match"); {
	case r.Method == http.MethodGet && m != "" && (!exists || m != etag),
		r.Method == http.MethodPut && r.Header.Get("If-None-Match") == "*" && exists,
		r.Method == http.MethodPut && m != "" && (!exists || m != etag):
		w.WriteHeader(http.StatusPreconditionFailed)
		return
	}
	s.inner.ServeHTTP(w, r)
}

// etag returns the ETag of the object r names, and whether it exists, as
// a HEAD of it finds.
func (s *S3) etag(r *http.Request) (string, bool) {
	head := httptest.NewRequest(http.MethodHead, r.URL.String(), nil)
	rec := httptest.NewRecorder()
	s.inner.ServeHTTP(rec, head)
	return rec.Header().Get("ETag"), rec.Code == http.StatusOK
}
