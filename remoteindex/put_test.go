package remoteindex

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/source/remote"
	"github.com/csvidx/csvidx/source/remote/remotetest"
)

// TestPut: an index put next to its CSV in S3, where there was none and
// then in place of the one there (another generation), is the one lookups
// read; an HTTP server that takes no PUT is an error that says so.
func TestPut(t *testing.T) {
	data, keys := testCSV(20000, 5)
	_, local, dir := served(t, data)
	s3 := remotetest.NewS3(t, "bucket")
	c := s3Client(s3)
	ctx := context.Background()
	if _, err := c.Put(ctx, "s3://bucket/a.csv", bytes.NewReader([]byte(data)), int64(len(data)), remote.Precondition{}); err != nil {
		t.Fatal(err)
	}
	lookup := func() string {
		t.Helper()
		x, err := Open(ctx, "s3://bucket/a.csv", &Options{Client: c, NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		return rows(t, func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }, keys[2])
	}
	prev, err := Version(ctx, c, "s3://bucket/a.csv.csvidx")
	if err != nil || prev != "" {
		t.Fatalf("Version where there is none: %q, %v", prev, err)
	}
	etag, err := Put(ctx, c, filepath.Join(dir, "a.csv.csvidx"), "s3://bucket/a.csv.csvidx", prev)
	if err != nil {
		t.Fatal(err)
	}
	if now, err := Version(ctx, c, "s3://bucket/a.csv.csvidx"); err != nil || etag == "" || now != etag {
		t.Errorf("Put gave the ETag %q; the index put has %q (%v)", etag, now, err)
	}
	// Another writer, who found none too, is refused.
	if _, err := Put(ctx, c, filepath.Join(dir, "a.csv.csvidx"), "s3://bucket/a.csv.csvidx", ""); !errors.Is(err, remote.ErrChanged) {
		t.Errorf("a second put where the first found none: %v, want ErrChanged", err)
	}
	if got, want := lookup(), rows(t, local.Get, keys[2]); got != want {
		t.Fatalf("after the first put: %q, want %q", got, want)
	}
	again := filepath.Join(t.TempDir(), "a.csv")
	os.WriteFile(again, []byte(data), 0o644)
	if _, err := index.Build(ctx, again, &index.BuildOptions{Key: "user"}); err != nil {
		t.Fatal(err)
	}
	prev, err = Version(ctx, c, "s3://bucket/a.csv.csvidx")
	if err != nil || prev == "" {
		t.Fatalf("Version: %q, %v", prev, err)
	}
	if _, err := Put(ctx, c, again+".csvidx", "s3://bucket/a.csv.csvidx", prev); err != nil {
		t.Fatalf("a put in place of an index: %v", err)
	}

	put, _ := os.ReadFile(again + ".csvidx")
	o, head, err := c.Open(ctx, "s3://bucket/a.csv.csvidx", int64(len(put)))
	if err != nil || !bytes.Equal(head, put) || o.Size() != int64(len(put)) {
		t.Fatalf("the index in S3 is not the one put last: %v", err)
	}
	if got, want := lookup(), rows(t, local.Get, keys[2]); got != want {
		t.Fatalf("after the second put: %q, want %q", got, want)
	}

	// Two builders that found the same version: the second is refused.
	prev, _ = Version(ctx, c, "s3://bucket/a.csv.csvidx")
	byID := filepath.Join(t.TempDir(), "a.csv")
	os.WriteFile(byID, []byte(data), 0o644)
	if _, err := index.Build(ctx, byID, &index.BuildOptions{Key: "id"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Put(ctx, c, byID+".csvidx", "s3://bucket/a.csv.csvidx", prev); err != nil {
		t.Fatal(err)
	}
	if _, err := Put(ctx, c, again+".csvidx", "s3://bucket/a.csv.csvidx", prev); !errors.Is(err, remote.ErrChanged) || !strings.Contains(err.Error(), "another writer") {
		t.Errorf("a put in place of a version replaced meanwhile: %v, want ErrChanged", err)
	}

	h := remotetest.NewServer(t)
	if _, err := Put(ctx, &remote.Client{}, again+".csvidx", h.URLOf("a.csv.csvidx"), ""); err == nil || !errors.As(err, new(*remote.StatusError)) {
		t.Errorf("a put to a server that takes none: %v", err)
	}
}

// s3Client returns a client of the S3 server s3, with its test
// credentials.
func s3Client(s3 *remotetest.S3) *remote.Client {
	return remote.NewS3Client(&remote.S3Config{Endpoint: s3.URL, Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")})
}
