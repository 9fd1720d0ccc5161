//go:build remote

package main

import (
	"strings"
	"testing"

	"github.com/csvidx/csvidx/source/remote"
)

// TestJoinNote: after a join with a RIGHT at a URL that read more than
// twice what RIGHT and its index hold (past a first round's few hundred
// KiB), a note says to download them; after one that read less, or with a
// local RIGHT, none.
func TestJoinNote(t *testing.T) {
	old := rightBytes
	defer func() { rightBytes = old }()
	rightBytes = 10 << 20
	c := remote.DefaultClient
	base := c.Stats.Bytes.Load()
	defer c.Stats.Bytes.Store(base)
	c.Stats.Bytes.Store(15 << 20)
	if note := joinNote("https://example.com/right.csv"); note != "" {
		t.Errorf("1.5 times RIGHT read: %q", note)
	}
	c.Stats.Bytes.Store(40 << 20)
	note := joinNote("https://example.com/right.csv")
	if !strings.Contains(note, "read 41.9 MB of https://example.com/right.csv") || !strings.Contains(note, "4.0 times") || !strings.Contains(note, "download them first") {
		t.Errorf("4 times RIGHT read: %q", note)
	}
	if note := joinNote("right.csv"); note != "" {
		t.Errorf("a local RIGHT: %q", note)
	}
}

// TestGapFlag: --gap-kib sets the gap of the clients of http and s3 URLs;
// without it, an s3 client keeps S3's, and an https one the default.
func TestGapFlag(t *testing.T) {
	defer func(g int64) { remoteGap, remote.DefaultClient.Gap = 0, g }(remote.DefaultClient.Gap)
	gapHTTP(0)
	if remote.DefaultClient.Gap != 0 {
		t.Errorf("no --gap-kib: the http client's gap is %d", remote.DefaultClient.Gap)
	}
	gapHTTP(8 << 10)
	c, err := clientFor("https://example.com/a.csv")
	if err != nil || c.Gap != 8<<10 || remote.DefaultClient.Gap != 8<<10 {
		t.Errorf("--gap-kib 8: %v, gap %d", err, c.Gap)
	}
}
