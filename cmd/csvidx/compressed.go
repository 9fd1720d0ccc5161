package main

import (
	"path/filepath"
	"strings"

	"github.com/csvidx/csvidx/source"
)

// csvidx comes in three builds of this one package. The default build
// links no decoder of compressed data: every package linked into a process
// runs its initialisation at start, and klauspost/compress's took 0.2-0.3
// ms (zstd) and 0.03-0.06 ms (flate) of every process, a fifth of a lookup
// (see internal/layout's TestLocalPathLinksNoDecoder). The codecs build
// (go build -tags codecs, codecs.go) links package source/compressed,
// whose backends read gzip (BGZF or not) and zstd files. The default
// build, given a file in a format the codecs build reads, runs the codecs
// build, installed as csvidx-codecs, in its place with the same arguments
// (reexec.go); without one, it says how to get it. Formats that no build
// reads get the advice to decompress them. The remote build (-tags remote)
// reads URLs, and all the codecs build reads: see remote.go.

// codecsName is the codecs build's file name, next to csvidx or on PATH.
const codecsName = "csvidx-codecs"

// reexecEnv marks the codecs build's process that the default build
// started: its value is the path of the csvidx that started it. A default
// build that finds it set runs nothing: the csvidx-codecs it runs as is not
// a codecs build, and running csvidx-codecs again would loop.
const reexecEnv = "CSVIDX_CODECS_REEXEC"

// codecsInstall is the command that builds csvidx-codecs next to the
// csvidx on PATH, from a clone of csvidx.
const codecsInstall = `go build -tags codecs -o "$(dirname "$(command -v csvidx)")/csvidx-codecs" ./cmd/csvidx`

// codecsReads reports whether the codecs build reads the file e is about:
// the formats whose backends package source/compressed registers (gzip,
// BGZF or not, and zstd), told by e's fields, since the default build may
// not import that package to ask it. A stream (join's LEFT) is read by no
// build.
func codecsReads(e *source.CompressedError) bool {
	return !e.Stream && (e.Format == "gzip" || e.Format == "zstd")
}

// decompressAdvice words the fix of a compressed input as the command that
// decompresses it: for a file, into a plain file beside it (its name
// without the format's suffix, else with .plain before its extension); for
// join's LEFT, into the join through a pipe. For a file the codecs build
// reads, which this build does not, it says how to get the codecs build
// first (this build found none to run: see runHelper).
func decompressAdvice(e *source.CompressedError) string {
	says := e.Path + " is " + e.What() + ", and csvidx reads plain CSV: "
	tool := e.Format // gzip, zstd, xz and bzip2 each decompress with -dc
	switch {
	case codecsReads(e) && !codecsBuild:
		return e.Path + " is " + e.What() + ", which csvidx reads through its codecs build, " + codecsName +
			", found neither next to csvidx nor on PATH: build it from a clone of csvidx (" + codecsInstall +
			"), or decompress the file first (" + tool + " -dc " + shellQuote(e.Path) + " > " + shellQuote(plainName(e.Path, e.Format)) + ")"
	case e.Format == "zip" && spreadsheet(e.Path):
		return e.Path + " is a zip archive (a spreadsheet), and csvidx reads plain CSV: save it as CSV first"
	case e.Format == "zip" && e.Stream:
		return says + "extract the CSV first (unzip -p FILE | csvidx join - RIGHT ...)"
	case e.Format == "zip":
		return says + "extract the CSV first (unzip " + shellQuote(e.Path) + ")"
	case e.Stream:
		return says + "decompress it into the join (" + tool + " -dc FILE | csvidx join - RIGHT ...)"
	}
	return says + "decompress it first (" + tool + " -dc " + shellQuote(e.Path) + " > " + shellQuote(plainName(e.Path, e.Format)) + ")"
}

// suffixes are the file name suffixes of each compressed format, as its
// tool writes them.
var suffixes = map[string][]string{
	"gzip":  {".gz", ".gzip"},
	"zstd":  {".zst", ".zstd"},
	"xz":    {".xz"},
	"bzip2": {".bz2", ".bzip2"},
}

// plainName returns where the decompressed data of the file at path, in
// format, goes: path without the format's suffix, else with ".plain" before
// its extension (data.csv holding gzip: data.plain.csv).
func plainName(path, format string) string {
	for _, suf := range suffixes[format] {
		if len(path) > len(suf) && strings.EqualFold(path[len(path)-len(suf):], suf) && !strings.HasSuffix(path[:len(path)-len(suf)], "/") {
			return path[:len(path)-len(suf)]
		}
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".plain" + ext
}

// spreadsheet reports whether path names an office document, which is a
// zip archive of XML, by its extension.
func spreadsheet(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xlsx", ".xlsm", ".ods", ".numbers":
		return true
	}
	return false
}
