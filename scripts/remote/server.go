package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A server serves a few files of a directory over HTTP on 127.0.0.1, as a
// static file server does: http.ServeContent (byte ranges, If-Match) with
// a strong ETag of the file's size and modification time, 405 to anything
// but GET and HEAD, 404 to any other name. Each request waits the delay
// before it is answered: a network's round trip. It logs every request.
type server struct {
	dir   string
	names map[string]bool // the names served
	url   string          // http://127.0.0.1:PORT
	delay atomic.Int64    // nanoseconds
	start time.Time
	srv   *http.Server

	mu  sync.Mutex
	log []request
}

// A request is what the server saw of one request, and what it answered.
type request struct {
	Method   string  `json:"method"`
	Name     string  `json:"name"`
	Range    string  `json:"range,omitempty"`
	IfMatch  bool    `json:"if_match,omitempty"`
	Status   int     `json:"status"`
	Bytes    int64   `json:"bytes"`     // of the body written
	StartMS  float64 `json:"start_ms"`  // since the server started, when it arrived
	AnswerMS float64 `json:"answer_ms"` // when the delay was over and the answer began
	EndMS    float64 `json:"end_ms"`    // when its answer was written
}

// newServer starts a server of the files names in dir, on a port of
// 127.0.0.1, in a goroutine of this process.
func newServer(dir string, delay time.Duration, names ...string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir, names: map[string]bool{}, url: "http://" + ln.Addr().String(), start: time.Now()}
	for _, n := range names {
		s.names[n] = true
	}
	s.delay.Store(int64(delay))
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *server) Close() error { return s.srv.Shutdown(context.Background()) }

// urlOf returns the URL of the file name.
func (s *server) urlOf(name string) string { return s.url + "/" + name }

// setDelay sets the delay of the requests to come, and returns the one
// before.
func (s *server) setDelay(d time.Duration) time.Duration {
	return time.Duration(s.delay.Swap(int64(d)))
}

// A counter is an http.ResponseWriter that keeps the status and counts the
// body's bytes.
type counter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (c *counter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *counter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(p)
	c.bytes += int64(n)
	return n, err
}

// ReadFrom hides the ResponseWriter's io.ReaderFrom, so that every byte
// goes through Write and is counted.
func (c *counter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{c}, r)
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	time.Sleep(time.Duration(s.delay.Load()))
	answered := time.Now()
	name := strings.TrimPrefix(r.URL.Path, "/")
	c := &counter{ResponseWriter: w}
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.log = append(s.log, request{Method: r.Method, Name: name, Range: r.Header.Get("Range"), IfMatch: r.Header.Get("If-Match") != "",
			Status: c.status, Bytes: c.bytes, StartMS: ms(arrived.Sub(s.start)), AnswerMS: ms(answered.Sub(s.start)), EndMS: ms(time.Since(s.start))})
	}()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		c.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	f, err := os.Open(filepath.Join(s.dir, name))
	if !s.names[name] || err != nil {
		if err == nil {
			f.Close()
		}
		http.NotFound(c, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(c, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, st.Size(), st.ModTime().UnixNano()))
	http.ServeContent(c, r, name, st.ModTime(), f)
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// now returns the milliseconds since the server started.
func (s *server) now() float64 { return ms(time.Since(s.start)) }

// mark returns how many requests the server has logged: what since takes.
func (s *server) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// since returns the requests logged after mark, in the order they arrived.
func (s *server) since(mark int) []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := slices.Clone(s.log[mark:])
	slices.SortStableFunc(rs, func(a, b request) int { return cmp.Compare(a.StartMS, b.StartMS) })
	return rs
}

// waves splits requests, sorted by arrival, into the round trips the
// server saw: a request that arrives once the first answer of the current
// wave began (its delay over) starts a new wave. The requests a client
// sends at once arrive within a millisecond or so, well inside the delay,
// and make one wave; a request sent only after an answer (the next round
// trip) starts another, and so do the GETs the client's limit of GETs at
// once held back until an answer came. Two streams of requests that do
// not wait for each other (a build's workers) count about as one. With no
// delay, nearly every request is a wave of its own: the count says little
// then.
func waves(rs []request) [][]request {
	var out [][]request
	first := 0.0 // when the current wave's first answer began
	for _, r := range rs {
		if len(out) == 0 || r.StartMS >= first {
			out = append(out, nil)
			first = r.AnswerMS
		}
		out[len(out)-1] = append(out[len(out)-1], r)
		first = min(first, r.AnswerMS)
	}
	return out
}

// describe says, for each wave of rs, which files it read, how many GETs
// of each and how many bytes: "csvidx 1×4 KiB, fence 1×2 KiB, csv 2×128 KiB".
func describe(rs []request, base string) []string {
	var out []string
	for i, w := range waves(rs) {
		type tally struct {
			n     int
			bytes int64
		}
		var order []string
		by := map[string]*tally{}
		for _, r := range w {
			short := strings.TrimPrefix(strings.TrimPrefix(r.Name, base), ".")
			if short == "" {
				short = "csv"
			}
			if r.Status != http.StatusOK && r.Status != http.StatusPartialContent {
				short += fmt.Sprintf(" (%d)", r.Status)
			}
			if by[short] == nil {
				by[short] = &tally{}
				order = append(order, short)
			}
			by[short].n++
			by[short].bytes += r.Bytes
		}
		parts := make([]string, len(order))
		for j, k := range order {
			parts[j] = fmt.Sprintf("%s %d GET, %s", k, by[k].n, human(by[k].bytes))
		}
		out = append(out, fmt.Sprintf("wave %d at %.1f ms: %s", i+1, w[0].StartMS-rs[0].StartMS, strings.Join(parts, "; ")))
	}
	return out
}

// human formats n bytes in B, KiB or MiB.
func human(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// fetchOnly reads the object at url, of size bytes, by ranged GETs of 4
// MiB (a build's read-ahead blocks), at most inflight at a time, into
// nothing, and returns the seconds it took: a remote build's floor of
// transfer and round trips, without the scan.
func fetchOnly(url string, size int64, inflight int) (float64, error) {
	const window = 4 << 20
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: inflight}}
	defer client.CloseIdleConnections()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, inflight)
	for w := range inflight {
		wg.Go(func() {
			for off := int64(w) * window; off < size; off += int64(inflight) * window {
				req, err := http.NewRequest(http.MethodGet, url, nil)
				if err != nil {
					errs[w] = err
					return
				}
				req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, min(off+window, size)-1))
				resp, err := client.Do(req)
				if err != nil {
					errs[w] = err
					return
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil && (resp.StatusCode != http.StatusPartialContent || n != min(window, size-off)) {
					err = fmt.Errorf("GET %s at %d: %s, %d bytes", url, off, resp.Status, n)
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return time.Since(start).Seconds(), nil
}
