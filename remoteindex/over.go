package remoteindex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/remote"
)

// OpenOver opens the index file at idxURL over csv, a CSV its caller
// opened (the concatenation of the files of an index over many, package
// multifile, which checks each file it reads): its head page, fence and
// tail in one round trip, its record pages fetched into the cache as
// lookups through Index() read them. Unlike Open, it opens no CSV and
// keeps no state for a next opening: each opening reads the index's head.
// It does not close csv when it fails.
func OpenOver(ctx context.Context, idxURL string, csv source.Source, o *Options) (*Index, error) {
	x := &Index{csvURL: csv.Name()}
	if o != nil {
		x.opts = *o
	}
	x.opts.IndexURL = idxURL
	if x.c = x.opts.Client; x.c == nil {
		x.c = remote.DefaultClient
	}
	base, err := x.cacheBase()
	if err != nil {
		return nil, err
	}
	x.base = base
	got := x.c.OpenAll(ctx, []remote.Fetch{
		{URL: idxURL, N: format.PageSize},
		{URL: idxURL + ".fence", N: remote.Whole},
		{URL: idxURL + ".tail", N: remote.Whole},
	})
	idx, fence, tail := got[0], got[1], got[2]
	if idx.Err != nil {
		x.Close()
		if missing(idx.Err) {
			return nil, fmt.Errorf("%w: the index file %s does not exist", index.ErrNoIndex, idxURL)
		}
		return nil, idx.Err
	}
	for _, f := range []remote.Fetched{fence, tail} {
		if f.Err != nil && !missing(f.Err) {
			x.Close()
			return nil, f.Err
		}
	}
	etag, _ := idx.Object.ETag()
	dir := entryDir(x.base, idxURL, etag)
	main := filepath.Join(dir, "index.csvidx")
	if err := x.cacheMain(dir, main, idx); err != nil {
		x.Close()
		return nil, err
	}
	if err := cacheWhole(main, fence, tail); err != nil {
		x.Close()
		return nil, err
	}
	x.ctx = ctx
	ix, err := index.Open(csv.Name(), &index.Options{IndexPath: main, CSV: csv, Pages: x.fetchPages})
	if err != nil {
		x.Close()
		return nil, err
	}
	x.ix = ix
	if x.temp == "" {
		prune(x.base, dir, cmp.Or(x.opts.CacheMax, DefaultCacheMax)) // best effort, as Open's
	}
	return x, nil
}

// ErrManifest means the object at a URL opened as a CSV is the manifest
// of an index over many files (package multifile), with no index of its
// own: a ManifestError says which, with its bytes.
var ErrManifest = errors.New("the manifest of an index over many files")

// A ManifestError is the manifest found at URL in place of a CSV, and
// its bytes, when the opening read them all (nil otherwise).
type ManifestError struct {
	URL  string
	Data []byte
}

func (e *ManifestError) Error() string {
	return e.URL + " is " + ErrManifest.Error() + ": get and info read it at its URL; other commands read it from a copy of it and its files on a local disk"
}
func (e *ManifestError) Unwrap() error { return ErrManifest }

// OpenWithEnds opens the object at url as a source whose first and last
// remote.HeadBytes were fetched in one round trip (as Open fetches a
// CSV's ends), for a reader that reads both first: the check of a file of
// an index over many files hashes them.
func OpenWithEnds(ctx context.Context, c *remote.Client, url string) (source.Source, error) {
	got := c.OpenAll(ctx, []remote.Fetch{{URL: url, N: remote.HeadBytes}, {URL: url, N: remote.HeadBytes, Suffix: true}})
	head, end := got[0], got[1]
	if head.Err != nil {
		return nil, head.Err
	}
	if int64(len(head.Bytes)) == head.Object.Size() { // the whole object: its end too (some stores answer a suffix past its start with an error)
		return remote.NewSource(head.Object, head.Bytes, nil), nil
	}
	if end.Err != nil {
		return nil, end.Err
	}
	if !sameVersion(head.Object, end.Object) {
		return nil, fmt.Errorf("%s: %w (its ETag was %s, then %s)", url, remote.ErrChanged, etagOf(head.Object), etagOf(end.Object))
	}
	return remote.NewSource(head.Object, head.Bytes, map[int64][]byte{end.At: end.Bytes}), nil
}
