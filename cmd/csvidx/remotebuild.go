//go:build remote

package main

// The remote build (go build -tags remote): source.Open reads http and
// https URLs through the opener that package remote registers at its
// initialisation, and compressed files as the codecs build does (codecs.go
// is built too), which every process of this build pays for (see
// remote.go). The other builds run this one, installed as csvidx-remote,
// for a URL.

import (
	_ "github.com/csvidx/csvidx/source/remote" // its init registers the openers of http, https and s3 URLs
)

// remoteBuild says this build reads remote CSVs.
const remoteBuild = true

// runHelper returns err: this build reads what every other build reads,
// and never runs another csvidx.
func runHelper(err error, _ []string, _ streams) (int, error) { return -1, err }
