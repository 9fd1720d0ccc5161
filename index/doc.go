// Package index builds, opens and checks csvidx indexes: secondary indexes
// that map the key of a CSV file, one column or several (a composite key),
// to the offsets of its rows, so that the rows of one key are found by
// reading a page of the index and then only those rows. Package join,
// above it, joins a CSV stream with an indexed CSV through its row API
// ([Index.Rows]).
//
// It reads every CSV through package source, writes and reads the bytes
// package format defines, resolves keys with package keyspec, and scans
// and sorts with packages scan, scan/chunked and sorter; it imports
// nothing above it (join, the command line, the Python binding).
//
// The CSV stays as it is. Next to it, FILE.csvidx holds the rows' offsets
// sorted by the XXH3-64 hash of their key, on 4 KiB pages that each carry a
// CRC. [Build] and [Compact] write a main index in format 2: for each
// fingerprint (the hash's top bits), a run of its rows' offsets coded in a
// bit stream, about 4 bytes per row. A tail, the rows appended since, keeps
// format 1: 16-byte (hash, offset) records. Both are read, so an index
// written before format 2 keeps working; package format describes the
// bytes. A file may have an index per key (see Several indexes, below).
//
// [Build] writes an index atomically, [BuildIndexes] several in one scan;
// [Open] maps one together with the CSV, refusing it when it is broken or
// stale; [Index.Lookup], [Index.Get] and [Index.Count] answer queries;
// [Update] indexes appended rows into a tail and [Compact] merges it;
// [Verify] compares an index with a fresh build; [Drop] removes its files.
//
// Every row a lookup returns has been read from the CSV and its key compared
// byte for byte: a key that shares a fingerprint or a hash with another
// costs reading rows that are then dropped, and corruption costs an error,
// never a wrong row.
//
// # Several indexes
//
// A CSV may have several indexes, each by its own key. The first one built
// lives at CSV.csvidx, where csvidx has always put an index, so that an
// index built before there could be several is found as it was. Each
// other index is named by its key's columns, 0-based, in the key's order:
// CSV.by-3.csvidx for column 3, CSV.by-1-4.csvidx for the composite key of
// columns 1 and 4. Names made of numbers cannot clash between two keys, nor
// with the .idx files of xsv and qsv, and they stay right when a header is
// renamed. What an index is by is in its header, not its name: the name
// only keeps two keys apart. With an index directory (IndexDir, see
// [HomeOf]) the same names start with DIR/BASE.HASH instead of the CSV's
// path.
//
// The index at CSV.csvidx is the file's default: a call that does not say
// which index it is about (By empty) uses it, so adding an index never
// breaks a working command. A file whose indexes all have by- names has a
// default only when it has one index.
//
// A build puts the index of a key where the file's index of the same
// columns is, if it has one; else at CSV.csvidx if the file has no index
// (or only a broken one there); else at its by- name, so that a new key
// never becomes the default in place of an index in use. An index path
// (IndexPath) puts a single index anywhere, outside this scheme: such an
// index is found only through its path.
//
// # Inside
//
// Two nouns carry the package. The files of an index (files.go) are its
// paths and the rules for touching them; opening them (opened.go) gives a
// verdict per file (fresh, behind, stale, broken, absent), and each entry
// point states its policy on those verdicts in a few lines. The pipeline
// (pipeline.go) is the one write path of Build, Update and Verify: it scans
// the CSV with package chunked, sorts the records with package sorter and
// packs them into pages for a sink (package format: a DensePacker in
// format 2, a PageWriter in format 1): a new file written with direct I/O
// (filesink.go), or Verify's comparison with the old one. Lookups read the
// pages through a format.Reader (part.go).
package index
