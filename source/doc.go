// Package source is the door through which a CSV's bytes come in: the
// checks that a path can be a CSV csvidx indexes (a regular file, plain
// rather than compressed: OpenInput, Check, Compression) and what it needs
// to know of it (ChangeTime). It imports nothing of csvidx but the
// internal packages: package index, above it, reads every CSV through it.
//
// It is to hold one interface for the uncompressed bytes of a CSV by
// offset, with a backend per kind of source (a mapped file first; a
// compressed file and a remote object later): issue 39 moves the mapped
// file here next.
package source
