// Package remotetest serves objects over HTTP on 127.0.0.1 for the tests of
// remote reading: byte ranges and If-Match as http.ServeContent serves
// them, strong ETags of the objects' bytes, a delay per request, counts of
// requests, and faults injected on the requests to come.
package remotetest

import (
	"bytes"
	"fmt"
	"hash/crc64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A Server serves the objects Put into it at their names. Its fields may
// be set before requests are sent.
type Server struct {
	*httptest.Server
	// Delay is how long each request waits before it is answered: a
	// network's round trip.
	Delay time.Duration
	// IgnoreIfMatch answers as if If-Match were not sent, as gofakes3
	// does on GET.
	IgnoreIfMatch bool
	// WeakETags gives each object a weak ETag.
	WeakETags bool
	// Requests counts the requests answered.
	Requests atomic.Int64
	// MostAtOnce is the most requests that were being answered at once.
	MostAtOnce atomic.Int64
	atOnce     atomic.Int64

	mu      sync.Mutex
	objects map[string][]byte
	faults  []Fault
	seen    []http.Header // the headers of each request, in order
}

// A Fault answers a request in place of the server, when it returns true;
// data is the object the request names (nil when there is none).
type Fault func(w http.ResponseWriter, r *http.Request, data []byte) bool

// NewServer starts a Server, closed at the end of t.
func NewServer(t testing.TB) *Server {
	s := &Server{objects: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Put makes data the object at name, replacing any before it.
func (s *Server) Put(name string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[name] = bytes.Clone(data)
}

// Get returns the object at name, and whether there is one.
func (s *Server) Get(name string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.objects[name]
	return b, ok
}

// URLOf returns the URL of the object at name.
func (s *Server) URLOf(name string) string { return s.URL + "/" + strings.TrimPrefix(name, "/") }

// Inject queues faults, which answer the requests to come in turn (a fault
// that returns false passes its request on, and is used up all the same).
func (s *Server) Inject(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Seen returns the headers of the requests answered so far, in order.
func (s *Server) Seen() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.seen...)
}

// ETagOf returns the ETag the server gives data.
func (s *Server) ETagOf(data []byte) string {
	tag := fmt.Sprintf(`"%016x-%d"`, crc64.Checksum(data, crc64.MakeTable(crc64.ECMA)), len(data))
	if s.WeakETags {
		return "W/" + tag
	}
	return tag
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := s.atOnce.Add(1)
	defer s.atOnce.Add(-1)
	for m := s.MostAtOnce.Load(); n > m && !s.MostAtOnce.CompareAndSwap(m, n); m = s.MostAtOnce.Load() {
	}
	time.Sleep(s.Delay)
	s.Requests.Add(1)
	s.mu.Lock()
	data := s.objects[strings.TrimPrefix(r.URL.Path, "/")]
	var fault Fault
	if len(s.faults) > 0 {
		fault, s.faults = s.faults[0], s.faults[1:]
	}
	s.seen = append(s.seen, r.Header.Clone())
	s.mu.Unlock()
	if fault != nil && fault(w, r, data) {
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed) // a static file server's answer to a PUT
		return
	}
	s.mu.Lock()
	data, ok := s.objects[strings.TrimPrefix(r.URL.Path, "/")] // as the fault left it
	s.mu.Unlock()
	if !ok {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<Error><Code>NoSuchKey</Code></Error>")
		return
	}
	if s.IgnoreIfMatch {
		r.Header.Del("If-Match")
	}
	w.Header().Set("ETag", s.ETagOf(data))
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// Status answers with code, and Retry-After when retryAfter is not empty.
func Status(code int, retryAfter string) Fault {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte) bool {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		return true
	}
}

// CutBody answers the range asked for, but ends the body after n bytes.
func CutBody(n int) Fault {
	return func(w http.ResponseWriter, r *http.Request, data []byte) bool {
		first, last, ok := rangeOf(r, len(data))
		if !ok {
			return false
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(data)))
		w.Header().Set("Content-Length", fmt.Sprint(last-first+1))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[first : first+min(n, last-first+1)])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection is cut
	}
}

// IgnoreRange answers with the whole object, 200, as a server that
// ignores ranges does.
func IgnoreRange() Fault {
	return func(w http.ResponseWriter, _ *http.Request, data []byte) bool {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data)
		return true
	}
}

// WrongRange answers with the bytes shift past those asked for, and a
// Content-Range that says so.
func WrongRange(shift int) Fault {
	return func(w http.ResponseWriter, r *http.Request, data []byte) bool {
		first, last, ok := rangeOf(r, len(data))
		if !ok || last+shift >= len(data) {
			return false
		}
		first, last = first+shift, last+shift
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(data)))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[first : last+1])
		return true
	}
}

// Replace puts data at name before the request is answered: the object
// changes between two requests of a read.
func (s *Server) Replace(name string, data []byte) Fault {
	return func(http.ResponseWriter, *http.Request, []byte) bool {
		s.Put(name, data)
		return false
	}
}

// rangeOf returns the one range of r's Range header, within an object of
// size bytes.
func rangeOf(r *http.Request, size int) (first, last int, ok bool) {
	var a, b int
	v := r.Header.Get("Range")
	if _, err := fmt.Sscanf(v, "bytes=-%d", &b); err == nil && b > 0 && size > 0 {
		return max(0, size-b), size - 1, true // the last b bytes
	}
	if _, err := fmt.Sscanf(v, "bytes=%d-%d", &a, &b); err != nil || a >= size {
		return 0, 0, false
	}
	return a, min(b, size-1), true
}
