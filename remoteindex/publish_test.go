package remoteindex

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/source/remote"
	"github.com/csvidx/csvidx/source/remote/remotetest"
)

// TestPublishManifest: an index over files at URLs, published in S3,
// puts its index files, fences and parts table, then the manifest, where
// there was none and then in place of the one it read (If-Match); a
// publication that read a manifest another writer has replaced since
// replaces nothing; an object that is not a manifest is never replaced;
// files that are not at URLs are refused before any PUT.
func TestPublishManifest(t *testing.T) {
	data, _ := testCSV(3000, 9)
	s, _, _ := served(t, data)
	s.Put("b.csv", []byte("id,user,note\n9001,u1,late\n"))
	s3 := remotetest.NewS3(t, "bucket")
	c := s3Client(s3)
	ctx := context.Background()
	local := filepath.Join(t.TempDir(), "m.idx")
	m, _, err := multifile.Build(ctx, []string{s.URLOf("a.csv"), s.URLOf("b.csv")}, local, &index.BuildOptions{Key: "user"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) []byte {
		t.Helper()
		o, b, err := c.Open(ctx, "s3://bucket/"+name, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if int64(len(b)) != o.Size() {
			t.Fatalf("%s: read %d of %d bytes", name, len(b), o.Size())
		}
		return b
	}
	first, err := PublishManifest(ctx, c, local, "s3://bucket/dir/m.idx")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(m.Partitions, m.Partitions[0]+".fence", m.PartsFile) {
		if len(get("dir/"+name)) == 0 {
			t.Errorf("%s: empty", name)
		}
	}
	if b := get("dir/m.idx"); !multifile.IsManifestBytes(b) || !bytes.Contains(b, []byte(m.Run)) || bytes.Contains(b, []byte(`"sources"`)) {
		t.Errorf("the published manifest: %s", b)
	}
	if _, _, err := multifile.Build(ctx, []string{s.URLOf("a.csv"), s.URLOf("b.csv")}, local, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatal(err) // another run: another manifest
	}
	second, err := PublishManifest(ctx, c, local, "s3://bucket/dir/m.idx")
	if err != nil || second == "" || second == first {
		t.Fatalf("a publication in place of the manifest read: %q, %v", second, err)
	}
	before := get("dir/m.idx")
	if _, err := publish(ctx, c, local, "s3://bucket/dir/m.idx", first); !errors.Is(err, remote.ErrChanged) || !strings.Contains(err.Error(), "another writer published") {
		t.Errorf("a publication whose manifest was replaced since it read it: %v, want ErrChanged", err)
	}
	if _, err := publish(ctx, c, local, "s3://bucket/dir/m.idx", ""); !errors.Is(err, remote.ErrChanged) {
		t.Errorf("a publication that found none where one is now: %v, want ErrChanged", err)
	}
	if after := get("dir/m.idx"); !bytes.Equal(after, before) {
		t.Error("a publication refused replaced the manifest")
	}
	if _, err := c.Put(ctx, "s3://bucket/dir/notes.idx", strings.NewReader("mine"), 4, remote.Precondition{}); err != nil {
		t.Fatal(err)
	}
	if _, err := PublishManifest(ctx, c, local, "s3://bucket/dir/notes.idx"); err == nil || !strings.Contains(err.Error(), "not a csvidx manifest") {
		t.Errorf("a publication over an object that is not a manifest: %v", err)
	}
	if string(get("dir/notes.idx")) != "mine" {
		t.Error("the object that is not a manifest was replaced")
	}
	plain := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(plain, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	localOnly := filepath.Join(t.TempDir(), "l.idx")
	if _, _, err := multifile.Build(ctx, []string{plain, s.URLOf("b.csv")}, localOnly, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatal(err)
	}
	n := s3.Requests.Load()
	if _, err := PublishManifest(ctx, c, localOnly, "s3://bucket/dir/l.idx"); err == nil || !strings.Contains(err.Error(), "is a local file") {
		t.Errorf("a publication of an index of a local file: %v", err)
	}
	if puts := s3.Requests.Load() - n; puts > 1 { // the manifest's version, read
		t.Errorf("a publication refused made %d requests", puts)
	}
}
