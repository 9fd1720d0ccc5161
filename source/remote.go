package source

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Remote CSVs are read by a package that registers an opener for their
// URLs' schemes (package remote registers http, https and s3): Open gives
// a name that is a URL, and not a local file's, to the opener of its
// scheme. Package source links no HTTP client, so that a program that reads
// only local files does not pay for its initialisation at every start.

// An Opener opens the CSV at a URL as a Source of its bytes, read by
// ranges.
type Opener func(url string) (Source, error)

var (
	openersMu sync.Mutex
	openers   atomic.Pointer[map[string]Opener] // by scheme, lower case; replaced whole, never changed
)

// RegisterOpener makes open the opener of the URLs of each of schemes
// ("https"), in place of any before it. It is meant for init functions, and
// safe to call at any time, concurrently with Open too.
func RegisterOpener(open Opener, schemes ...string) {
	openersMu.Lock()
	defer openersMu.Unlock()
	m := map[string]Opener{}
	if old := openers.Load(); old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	for _, s := range schemes {
		m[strings.ToLower(s)] = open
	}
	openers.Store(&m)
}

// openerFor returns the opener registered for the scheme of name, a URL,
// and whether there is one.
func openerFor(name string) (Opener, bool) {
	scheme, _, ok := strings.Cut(name, "://")
	m := openers.Load()
	if !ok || m == nil {
		return nil, false
	}
	open, ok := (*m)[strings.ToLower(scheme)]
	return open, ok
}

// remoteInfo is what Stat says of a remote CSV without asking its server:
// a regular file, whose index files are made readable by all.
type remoteInfo string

func (r remoteInfo) Name() string       { return string(r) }
func (r remoteInfo) Size() int64        { return 0 }
func (r remoteInfo) Mode() fs.FileMode  { return 0o644 }
func (r remoteInfo) ModTime() time.Time { return time.Time{} }
func (r remoteInfo) IsDir() bool        { return false }
func (r remoteInfo) Sys() any           { return nil }

// Remote reports whether Open reads name through a registered opener: a
// URL of a scheme one reads, which names no local file.
func Remote(name string) bool {
	if !IsURL(name) {
		return false
	}
	if _, ok := openerFor(name); !ok {
		return false
	}
	_, err := os.Stat(name)
	return errors.Is(err, fs.ErrNotExist)
}
