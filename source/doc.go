// Package source is the door through which a CSV's bytes come in. Today
// it has one kind of source, a File: a regular file mapped whole, its
// bytes zero-copy (Bytes), read at an offset (ReaderAt), guarded against the
// file shrinking under the mapping (Guard), and told from another version
// of itself by its Identity (size, modification and change times). Before
// a file is opened, OpenInput and Check say whether it can be a CSV that
// csvidx indexes: a regular file, plain rather than compressed
// (Compression).
//
// It imports nothing of csvidx but the internal packages; package index,
// above it, opens every CSV through it. The next step of issue 39 puts
// the File behind an interface with a backend per kind of source (a
// compressed file and a remote object next), chosen by Open.
package source
