//go:build remote

package main

// The remote build (go build -tags remote): source.Open reads http, https
// and s3 URLs through the openers that package remote registers at its
// initialisation, get looks up a remote CSV through its remote index
// (package remoteindex), and compressed files as the codecs build does (codecs.go
// is built too), which every process of this build pays for (see
// remote.go). The other builds run this one, installed as csvidx-remote,
// for a URL.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/remoteindex"
	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/remote" // its init registers the openers of http, https and s3 URLs
)

func init() {
	openRemote, buildRemote, openRight, localRemote = openRemoteIndex, buildRemoteIndex, openRemoteRight, localRemoteIndex
	remoteJoinNote, applyGap, publishManifest = joinNote, gapHTTP, publishRemote
}

// publishRemote publishes the index over many files whose manifest is at
// local at url (see remoteindex.PublishManifest).
func publishRemote(ctx context.Context, local, url string) error {
	c, err := clientFor(url)
	if err != nil {
		return err
	}
	_, err = remoteindex.PublishManifest(ctx, c, local, url)
	return err
}

// rightBytes is the size of a RIGHT at a URL and of its index, which its
// opening found (see openRemoteRight): what a download of them takes.
var rightBytes int64

// openRemoteIndex opens the remote index of the CSV at csvPath, a URL:
// next to it, or at --index's URL, fetched in part into the cache (see
// package remoteindex).
func openRemoteIndex(ctx context.Context, csvPath string, g *globals, noCache bool) (opened, lookups, func() error, error) {
	c, err := clientFor(csvPath)
	if err != nil {
		return nil, nil, nil, err
	}
	limit, err := remoteindex.CacheMaxFromEnv()
	if err != nil {
		return nil, nil, nil, err
	}
	o := &remoteindex.Options{IndexURL: g.indexPath, NoCache: noCache, Client: c, By: g.by, CacheMax: limit}
	x, err := remoteindex.Open(ctx, csvPath, o)
	if me := (*remoteindex.ManifestError)(nil); errors.As(err, &me) && g.indexPath == "" {
		return openRemoteMany(ctx, me, g, o)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return x.Index(), remoteLookups{ctx, x}, x.Close, nil
}

// openRemoteMany opens the index over many files whose manifest is at a
// URL, as the remote index's opening found it (me): its parts table and
// files read at their URLs (relative paths taken against the manifest's),
// its index files fetched in part into the cache, as a remote CSV's index
// is (remoteindex.OpenOver), with o's client and cache.
func openRemoteMany(ctx context.Context, me *remoteindex.ManifestError, g *globals, o *remoteindex.Options) (opened, lookups, func() error, error) {
	if g.by != "" {
		return nil, nil, nil, fmt.Errorf("%s is an index over several files, by one key: --by picks among one file's indexes; leave it out", me.URL)
	}
	ro := *o
	ro.IndexURL, ro.By = "", ""
	openIndex := func(path string, csv *source.Concat) (*index.Index, func() error, error) {
		x, err := remoteindex.OpenOver(ctx, path, csv, &ro)
		if err != nil {
			return nil, nil, err
		}
		return x.Index(), x.Close, nil
	}
	openURL := func(url string) (source.Source, error) {
		c, err := clientFor(url)
		if err != nil {
			return nil, err
		}
		return remoteindex.OpenWithEnds(ctx, c, url)
	}
	x, err := multifile.OpenWith(me.URL, me.Data, &multifile.OpenOptions{OpenIndex: openIndex, OpenURL: openURL})
	if err != nil {
		return nil, nil, nil, err
	}
	m := &manyIndex{Index: x}
	return m, m, x.Close, nil
}

// remoteLookups are the lookups of a remote index, which fetch what they
// read.
type remoteLookups struct {
	ctx context.Context
	x   *remoteindex.Index
}

func (r remoteLookups) Get(keys [][]byte, fn func([]byte) error) error {
	return r.x.Get(r.ctx, keys, fn)
}

func (r remoteLookups) Count(key []byte) (int64, error) { return r.x.Count(r.ctx, key) }

// remoteBuild says this build reads remote CSVs.
const remoteBuild = true

// runHelper returns err: this build reads what every other build reads,
// and never runs another csvidx.
func runHelper(err error, _ []string, _ streams) (int, error) { return -1, err }

// buildRemoteIndex builds the indexes of the CSV at csvURL by keys, in one
// scan, in a temporary directory, and puts each with its fence (see
// remoteindex.Put) at opts.IndexPath's URL (one key), or next to the CSV
// as a local build places it: at csvURL.csvidx where there is none or the
// one there is by the same columns, else at the by- name of the key's
// columns (see remoteindex.Placement), one after the other in the order of
// keys, so that the first new one may take the default's place.
func buildRemoteIndex(ctx context.Context, csvURL string, keys []string, opts *index.BuildOptions) ([]*index.Info, error) {
	if len(keys) > 1 && opts.IndexPath != "" {
		return nil, fmt.Errorf("%d keys and one index URL: --index is for one index; leave it out to put each next to the CSV", len(keys))
	}
	c, err := clientFor(csvURL)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "csvidx-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	def := cmp.Or(opts.IndexPath, csvURL+".csvidx")
	prev, err := remoteindex.Version(ctx, c, def) // before the build: another writer's index put meanwhile is not replaced
	if err != nil {
		return nil, err
	}
	local := *opts
	local.IndexPath, local.IndexDir = "", dir // each key's index in dir, named as next to a local CSV
	infos, err := index.BuildIndexes(ctx, csvURL, keys, &local)
	if err != nil {
		return nil, err
	}
	for _, info := range infos {
		idxURL, was := def, prev
		if opts.IndexPath == "" {
			cols := info.KeyColumns
			if cols == nil {
				cols = []int{info.KeyColumn}
			}
			if idxURL, was, err = remoteindex.Placement(ctx, c, csvURL, cols, prev); err != nil {
				return nil, err
			}
		}
		etag, err := remoteindex.Put(ctx, c, info.IndexPath, idxURL, was)
		if err != nil {
			return nil, err
		}
		if idxURL == def {
			prev = etag // the default is now this build's, by its key
		}
		info.IndexPath = idxURL
		if info.Fence != "" {
			info.Fence = idxURL + ".fence"
		}
	}
	return infos, nil
}

// clientFor returns the client that reads url: S3's for an s3 URL, with
// the gap --gap-kib gives, if any.
func clientFor(url string) (*remote.Client, error) {
	c := remote.DefaultClient
	if strings.HasPrefix(strings.ToLower(url), "s3://") {
		var err error
		if c, err = remote.S3Client(); err != nil {
			return nil, err
		}
	}
	if remoteGap > 0 {
		c.Gap = remoteGap
	}
	return c, nil
}

// remoteGap is the gap --gap-kib gives the clients (see clientFor), in
// bytes; 0 for their defaults.
var remoteGap int64

// gapHTTP records gap, --gap-kib's, for the clients clientFor returns, and
// gives it to the client of http and https URLs, which source.Open reads
// them with, when it is not 0.
func gapHTTP(gap int64) {
	remoteGap = gap
	if gap > 0 {
		remote.DefaultClient.Gap = gap
	}
}

// openRemoteRight opens the index of join's RIGHT: for a RIGHT at a URL,
// its remote index (next to it, or at o.IndexPath's URL), opened cold, its
// files closed when the process exits; else as index.Open does.
func openRemoteRight(rightPath string, o *index.Options) (*index.Index, error) {
	if !source.Remote(rightPath) || o.IndexDir != "" || o.IndexPath != "" && !source.Remote(o.IndexPath) {
		return index.Open(rightPath, o)
	}
	c, err := clientFor(rightPath)
	if err != nil {
		return nil, err
	}
	limit, err := remoteindex.CacheMaxFromEnv()
	if err != nil {
		return nil, err
	}
	x, err := remoteindex.Open(context.Background(), rightPath, &remoteindex.Options{Client: c, IndexURL: o.IndexPath, Cold: true, CacheMax: limit})
	if err != nil {
		return nil, err
	}
	ix := x.Index()
	info := ix.Info()
	rightBytes = cmp.Or(info.FileBytes, info.CSVBytes) + info.IndexBytes // a compressed one's download is its compressed bytes
	if key := ix.Definition().Key(); o.IndexPath == "" && o.By != "" && key != o.By {
		x.Close()
		return nil, fmt.Errorf("the index of %s (%s.csvidx) is by %s, not by %s: give the URL of an index by %s with --index", rightPath, rightPath, key, o.By, o.By)
	}
	return ix, nil
}

// localRemoteIndex opens the remote index of the CSV at csvPath (cold)
// and fetches it whole into the cache, for verify.
func localRemoteIndex(ctx context.Context, csvPath string, g *globals) (string, string, func() error, error) {
	c, err := clientFor(csvPath)
	if err != nil {
		return "", "", nil, err
	}
	limit, err := remoteindex.CacheMaxFromEnv()
	if err != nil {
		return "", "", nil, err
	}
	x, err := remoteindex.Open(ctx, csvPath, &remoteindex.Options{Client: c, IndexURL: g.indexPath, Cold: true, CacheMax: limit})
	if err != nil {
		return "", "", nil, err
	}
	path, err := x.Local(ctx)
	if err != nil {
		x.Close()
		return "", "", nil, err
	}
	return path, cmp.Or(g.indexPath, csvPath+".csvidx"), x.Close, nil
}

// joinNote returns, after a join with a RIGHT at a URL (rightPath), the
// note that the join read twice the bytes RIGHT and its index hold, or more,
// with the advice to download them for joins as large: each batch of
// LEFT's keys reads its own pages and rows, and batches of keys spread
// over all of RIGHT read most of it each. "" when it read less, or RIGHT is
// not at a URL.
func joinNote(rightPath string) string {
	if !source.Remote(rightPath) || rightBytes == 0 {
		return ""
	}
	c, err := clientFor(rightPath)
	if err != nil {
		return ""
	}
	read := c.Stats.Bytes.Load()
	if read <= 2*rightBytes+1<<20 { // twice what a download reads, past an opening's few hundred KiB
		return ""
	}
	return fmt.Sprintf("the join read %.1f MB of %s over the network, %.1f times what it and its index hold: for joins as large, download them first",
		float64(read)/1e6, rightPath, float64(read)/float64(rightBytes))
}
