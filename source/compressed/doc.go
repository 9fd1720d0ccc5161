// Package compressed reads compressed CSV files at random: each backend is
// a source.Source whose ReadAt serves the offsets of the plain bytes.
// Framed reads files made of frames that decode alone, through a table of
// where each frame starts in the file and in the plain stream: BGZF
// (bgzip's gzip of 64 KiB members; OpenBGZF, ScanBGZF) and zstd of many
// frames (pzstd's, the seekable format's, concatenated files; OpenZstd,
// ScanZstd). A read decodes the frames that hold its bytes, checked by
// their own checksums and against the table, and keeps the last few.
//
// Gzip reads plain gzip (gzip's and pigz's, one member or several;
// OpenGzip, WalkGzip), whose members do not cut into pieces that inflate
// alone: one pass over the file inflates it all and records checkpoints a
// span apart (each with the 32 KiB of plain bytes before it, compressed),
// and a read resumes inflating at the checkpoint before its bytes,
// checking the span it inflates against the CRC-32 the pass recorded.
// Its table, kept in the index (gziptable.go), is mostly those windows.
//
// A file appended to (members or frames after those its table covers: gzip
// -c more.csv >> f.csv.gz) is opened through the table of what it was, and
// only the new part is walked (ExtendGzip, ExtendBGZF, ExtendZstd).
//
// Importing it registers its backends with package source (register.go):
// source.Open then reads BGZF, zstd and plain gzip files, told by their
// first bytes, as Framed and Gzip sources.
//
// It is a package of its own, above source and beside index, so that the
// programs that read only plain files do not link its decoders: every
// package linked into a process runs its initialisation at start, and
// klauspost/compress's took a fifth of a lookup (see internal/layout's
// TestLocalPathLinksNoDecoder). The csvidx command links it only in its
// codecs build (go build -tags codecs), which the default build runs for
// a file it cannot read; the Python binding links it always.
package compressed
