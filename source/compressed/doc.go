// Package compressed reads compressed CSV files at random: each backend is
// a source.Source whose ReadAt serves the offsets of the plain bytes.
// Framed reads files made of frames that decode alone, through a table of
// where each frame starts in the file and in the plain stream: BGZF
// (bgzip's gzip of 64 KiB members; OpenBGZF, ScanBGZF) and zstd of many
// frames (pzstd's, the seekable format's, concatenated files; OpenZstd,
// ScanZstd). A read decodes the frames that hold its bytes, checked by
// their own checksums and against the table, and keeps the last few.
//
// Importing it registers its backends with package source (register.go):
// source.Open then reads BGZF and zstd files, told by their first bytes,
// as Framed sources. Plain gzip is not read yet (issue 40).
//
// It is a package of its own, above source and beside index, so that the
// programs that read only plain files do not link its decoders: every
// package linked into a process runs its initialisation at start, and
// klauspost/compress's took a fifth of a lookup (see internal/layout's
// TestLocalPathLinksNoDecoder). The csvidx command links it only in its
// codecs build (go build -tags codecs), which the default build runs for
// a file it cannot read; the Python binding links it always.
package compressed
