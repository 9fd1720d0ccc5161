package main

import (
	"context"
	"errors"
	"strings"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/remoteindex"
	"github.com/csvidx/csvidx/source/remote"
)

// openRemote opens the remote index of the CSV at csvURL, next to it or at
// idxURL (see package remoteindex), for a handle: the lookups through it
// fetch the index pages they read (index.Options.Pages) and their rows. It
// opens cold, fetching the index's head, fence and tail: a handle lives
// for many lookups, whose rows each read checks the CSV's version.
func openRemote(csvURL, idxURL, by string) (*index.Index, func() error, error) {
	if by != "" {
		return nil, nil, errors.New("by picks among a local CSV's indexes; for a remote CSV, give index_path as a URL")
	}
	c := remote.DefaultClient
	if strings.HasPrefix(strings.ToLower(csvURL), "s3://") {
		s3, err := remote.S3Client()
		if err != nil {
			return nil, nil, err
		}
		c = s3
	}
	limit, err := remoteindex.CacheMaxFromEnv()
	if err != nil {
		return nil, nil, err
	}
	x, err := remoteindex.Open(context.Background(), csvURL, &remoteindex.Options{Client: c, IndexURL: idxURL, Cold: true, CacheMax: limit})
	if err != nil {
		return nil, nil, err
	}
	return x.Index(), x.Close, nil
}
