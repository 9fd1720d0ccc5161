//go:build codecs

package main

// The codecs build (go build -tags codecs): source.Open reads BGZF and
// zstd files through the backends that package compressed registers at
// its initialisation, which every process of this build pays for (see
// compressed.go). The default build runs this one, installed as
// csvidx-codecs, for a file in those formats.

import (
	_ "github.com/csvidx/csvidx/source/compressed" // registers the BGZF and zstd backends
)

// codecsBuild says this build reads the formats of package compressed.
const codecsBuild = true

// runCodecs returns err: this build reads what the codecs build reads, and
// never runs another csvidx.
func runCodecs(err error, _ []string, _ streams) (int, error) { return -1, err }

// beforeStdin does nothing: this build has no other csvidx to run.
func beforeStdin(string) error { return nil }
