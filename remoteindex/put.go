package remoteindex

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/csvidx/csvidx/source/remote"
)

// Put puts the index file at local and its fence (local.fence, when there
// is one) at idxURL and idxURL.fence, each by one PUT, so that a reader
// sees an index whole or not at all: a new one only where there is none
// (If-None-Match: *), else in place of the one there, as long as no other
// writer replaced it meanwhile (If-Match on the ETag it had). The main
// index goes first: a reader that finds it with the old fence ignores the
// fence (it names another generation) and reads the pages it needs without
// it. A tail of the old index there is ignored by readers (it extends
// another main index).
func Put(ctx context.Context, c *remote.Client, local, idxURL string) error {
	for _, f := range []struct{ path, url string }{{local, idxURL}, {local + ".fence", idxURL + ".fence"}} {
		file, err := os.Open(f.path)
		if errors.Is(err, os.ErrNotExist) && f.url != idxURL {
			continue
		} else if err != nil {
			return err
		}
		st, err := file.Stat()
		if err != nil {
			file.Close()
			return err
		}
		err = putReplacing(ctx, c, f.url, file, st.Size())
		file.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// putReplacing puts size bytes of body at url: where there is nothing, or
// in place of the version there when it is still there.
func putReplacing(ctx context.Context, c *remote.Client, url string, body *os.File, size int64) error {
	_, err := c.Put(ctx, url, body, size, remote.Precondition{IfNoneMatch: true})
	if !errors.Is(err, remote.ErrChanged) {
		return err
	}
	o, _, err := c.Open(ctx, url, 1)
	if err != nil {
		return err
	}
	etag, weak := o.ETag()
	if etag == "" || weak {
		return fmt.Errorf("%s: there is one, which has no strong ETag to replace it safely by: remove it first", url)
	}
	if _, err := c.Put(ctx, url, body, size, remote.Precondition{IfMatch: etag}); err != nil {
		return fmt.Errorf("%w: another writer replaced it meanwhile; run the build again", err)
	}
	return nil
}
