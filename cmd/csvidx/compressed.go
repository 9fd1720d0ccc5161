package main

import (
	"path/filepath"
	"strings"

	"github.com/csvidx/csvidx/source"
)

// decompressAdvice words the fix of a compressed input as the command that
// decompresses it: for a file, into a plain file beside it (its name
// without the format's suffix, else with .plain before its extension); for
// join's LEFT, into the join through a pipe.
func decompressAdvice(e *source.CompressedError) string {
	says := e.Path + " is " + e.What() + ", and csvidx reads plain CSV: "
	tool := e.Format // gzip, zstd, xz and bzip2 each decompress with -dc
	switch {
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
