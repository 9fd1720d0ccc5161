package remoteindex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/index"

	"github.com/csvidx/csvidx/source/remote"
)

// Version returns the ETag of the index at idxURL, "" when there is none:
// what a builder records before its build, for Put.
func Version(ctx context.Context, c *remote.Client, idxURL string) (string, error) {
	o, _, err := c.Open(ctx, idxURL, 1)
	if missing(err) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	etag, weak := o.ETag()
	if etag == "" || weak {
		return "", fmt.Errorf("%s: there is one, without a strong ETag to replace it safely by: remove it first", idxURL)
	}
	return etag, nil
}

// Put puts the index file at local and its fence (local.fence, when there
// is one) at idxURL and idxURL.fence, each by one PUT, so that a reader
// sees an index whole or not at all. The main index goes where prev, the
// ETag Version gave before the build, is still there (If-Match), or where
// there is none when prev is "" (If-None-Match: *): an index another
// writer put meanwhile is an error, never overwritten. The fence follows
// (replacing whatever fence is there): a reader that finds the new main
// index with the old fence ignores the fence (it names another
// generation) and reads the pages it needs without it. A tail of the old
// index there is ignored by readers (it extends another main index). It
// returns the ETag of the main index put, as the store gave it, else as
// Version finds it.
func Put(ctx context.Context, c *remote.Client, local, idxURL, prev string) (string, error) {
	var etag string
	for _, f := range []struct{ path, url string }{{local, idxURL}, {local + ".fence", idxURL + ".fence"}} {
		cond := remote.Precondition{IfNoneMatch: prev == "", IfMatch: prev}
		if f.url != idxURL {
			cond = remote.Precondition{}
		}
		tag, err := putFile(ctx, c, f.path, f.url, cond)
		if errors.Is(err, os.ErrNotExist) && f.url != idxURL { // no fence
			continue
		}
		if errors.Is(err, remote.ErrChanged) {
			return "", fmt.Errorf("%w: another writer put an index there during this build; run the build again", err)
		}
		if err != nil {
			return "", err
		}
		if f.url == idxURL {
			etag = tag
		}
	}
	if etag == "" || strings.HasPrefix(etag, "W/") { // none given, or not one to replace it by
		return Version(ctx, c, idxURL)
	}
	return etag, nil
}

// Placement returns where the index by the columns cols (0-based) of the
// CSV at csvURL goes next to it, as a local build places one (see
// index.Locate): csvURL.csvidx when there is none there or the one there
// is by cols, else the by- name of cols (csvURL.by-1-4.csvidx); and the
// ETag of the index there now ("" for none), for Put. defaultETag is the
// ETag Version gave of csvURL.csvidx before the build ("" for none): the
// default index is replaced only if it is still that one.
func Placement(ctx context.Context, c *remote.Client, csvURL string, cols []int, defaultETag string) (idxURL, prev string, err error) {
	def := csvURL + ".csvidx"
	if defaultETag == "" {
		return def, "", nil
	}
	o, head, err := c.Open(ctx, def, format.PageSize)
	if missing(err) {
		return def, "", nil
	} else if err != nil {
		return "", "", err
	}
	if etag, _ := o.ETag(); etag != defaultETag {
		return "", "", fmt.Errorf("%s: %w (another writer put an index there during this build; run the build again)", def, remote.ErrChanged)
	}
	h, err := format.DecodeHeader(head)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", def, err)
	}
	if slices.Equal(h.KeyColumns(), cols) {
		return def, defaultETag, nil
	}
	by := index.ByName(csvURL, cols)
	prev, err = Version(ctx, c, by)
	return by, prev, err
}
