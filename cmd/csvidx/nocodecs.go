//go:build !codecs && !remote

package main

import (
	"context"
	"errors"

	"github.com/csvidx/csvidx/source"
)

// The default build links no decoder (see compressed.go): for a file in a
// format only the codecs build reads, and for compress, it runs the codecs
// build in its place (see runHelper).

// codecsBuild says this build reads the formats of package compressed.
const codecsBuild = false

// compressFile is the compress command's work, which this build leaves
// to the codecs build.
func compressFile(context.Context, compressOptions) (compressResult, error) {
	return compressResult{}, &needsCodecsError{command: "compress", does: "writes compressed files"}
}

// beforeStdin returns the *source.CompressedError of the CSV at path when
// the codecs build reads it: a command that reads standard input before it
// opens the CSV (bench's KEYSFILE -; join's LEFT -, whose header names
// RIGHT's index) calls it first, so that the codecs build, run in its
// place, finds standard input whole. It opens the CSV once more: get,
// whose lookups count every system call, reads its keys from standard
// input after the index instead (see keyInput).
func beforeStdin(path string) error {
	var ce *source.CompressedError
	if err := source.Check(path); errors.As(err, &ce) && codecsReads(ce) {
		return ce
	}
	return nil
}
