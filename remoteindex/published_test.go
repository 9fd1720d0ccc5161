package remoteindex

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/remote"
	"github.com/csvidx/csvidx/source/remote/remotetest"
)

// TestPublishedNamesAsWritten: an index over files whose S3 keys hold a
// space, published beside them, is read back: the parts table names them
// relative to the manifest, and an s3:// key is joined to it as written.
func TestPublishedNamesAsWritten(t *testing.T) {
	s3 := remotetest.NewS3(t, "bucket")
	t.Setenv("AWS_ENDPOINT_URL_S3", s3.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	c := s3Client(s3)
	ctx := context.Background()
	for name, body := range map[string]string{"data/Orders 2026.csv": "id,user\n1,u1\n2,u2\n", "data/b.csv": "id,user\n3,u1\n"} {
		if _, err := c.Put(ctx, "s3://bucket/"+name, strings.NewReader(body), int64(len(body)), remote.Precondition{}); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(t.TempDir(), "m.idx")
	if _, _, err := multifile.Build(ctx, []string{"s3://bucket/data/Orders 2026.csv", "s3://bucket/data/b.csv"}, local, &index.BuildOptions{Key: "user"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := PublishManifest(ctx, c, local, "s3://bucket/data/m.idx"); err != nil {
		t.Fatal(err)
	}
	o := &multifile.OpenOptions{
		OpenIndex: func(path string, csv *source.Concat) (*index.Index, func() error, error) {
			x, err := OpenOver(ctx, path, csv, &Options{Client: c, NoCache: true})
			if err != nil {
				return nil, nil, err
			}
			return x.Index(), x.Close, nil
		},
		OpenURL: func(url string) (source.Source, error) { return OpenWithEnds(ctx, c, url) },
	}
	x, err := multifile.OpenWith("s3://bucket/data/m.idx", nil, o)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var got []string
	err = x.Each([][]byte{[]byte("u1")}, func(r multifile.Row) error {
		got = append(got, r.Path+": "+strings.TrimSpace(string(r.Bytes)))
		return nil
	})
	if err != nil || len(got) != 2 {
		t.Errorf("get u1 of the published index: %q, %v", got, err)
	}
}
