package remoteindex

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/source/remote"
)

// PublishManifest puts the index over many files whose manifest is at
// local at url (see multifile.PublishFiles): its index files, fences and
// parts table beside url, then the manifest by a conditional PUT, where
// the manifest there before is still the one read first (If-Match), or
// where there was none (If-None-Match: *). A reader sees the old manifest
// or the new one, each with all its files; a writer that published
// meanwhile makes this one fail, with nothing replaced. An object at url
// that is not a manifest is never replaced. The old manifest's files are
// left where they are (they are named after their run). It returns the
// manifest's ETag.
func PublishManifest(ctx context.Context, c *remote.Client, local, url string) (string, error) {
	prev, err := manifestVersion(ctx, c, url)
	if err != nil {
		return "", err
	}
	return publish(ctx, c, local, url, prev)
}

// manifestVersion returns the ETag of the manifest at url, "" when there
// is none; an error when there is an object that is not a manifest, or
// one without a strong ETag.
func manifestVersion(ctx context.Context, c *remote.Client, url string) (string, error) {
	o, head, err := c.Open(ctx, url, 64)
	switch {
	case missing(err):
		return "", nil
	case err != nil:
		return "", err
	case !multifile.IsManifestBytes(head):
		return "", fmt.Errorf("%s is not a csvidx manifest; csvidx replaces only its own objects: remove it, or give another URL", url)
	}
	etag, weak := o.ETag()
	if etag == "" || weak {
		return "", fmt.Errorf("%s: a manifest is there, without a strong ETag to replace it safely by: remove it first", url)
	}
	return etag, nil
}

// publish is PublishManifest, the manifest replaced only if its ETag is
// prev ("": only if there is none).
func publish(ctx context.Context, c *remote.Client, local, url, prev string) (string, error) {
	tmp, err := os.MkdirTemp("", "csvidx-publish-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ups, err := multifile.PublishFiles(local, url, tmp)
	if err != nil {
		return "", err
	}
	home := url[:len(url)-len(ups[len(ups)-1].Name)]
	var etag string
	for i, u := range ups {
		cond := remote.Precondition{} // a run's files: the same bytes whoever puts them
		if i == len(ups)-1 {
			cond = remote.Precondition{IfNoneMatch: prev == "", IfMatch: prev}
		}
		if etag, err = putFile(ctx, c, u.Local, home+u.Name, cond); err != nil {
			if errors.Is(err, remote.ErrChanged) {
				return "", fmt.Errorf("%w: another writer published an index there meanwhile; run this again", err)
			}
			return "", err
		}
	}
	return etag, nil
}

// putFile puts the local file at path at url, if cond holds.
func putFile(ctx context.Context, c *remote.Client, path, url string, cond remote.Precondition) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	return c.Put(ctx, url, f, st.Size(), cond)
}
