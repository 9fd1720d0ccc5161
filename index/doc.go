// Package index builds, opens and checks csvidx indexes: secondary indexes
// that map the key column of a CSV file to the offsets of its rows, so that
// the rows of one key are found by reading a page of the index and then only
// those rows.
//
// The CSV stays as it is. Next to it, FILE.csvidx holds 16-byte records,
// (xxh3 hash of the key, offset of the row), sorted by hash, on 4 KiB pages
// that each carry a CRC; format.go describes the bytes. [Build] writes an
// index atomically; [Open] maps it together with the CSV, refusing one that
// is broken or stale; [Index.Lookup], [Index.Get] and [Index.Count] answer
// queries; [Update] indexes appended rows into a tail and [Compact] merges
// it; [Verify] compares an index with a fresh build.
//
// Every row a lookup returns has been read from the CSV and its key compared
// byte for byte, so hash collisions and corruption cost an error, never a
// wrong row.
//
// # Inside
//
// Two nouns carry the package. The files of an index (files.go) are its
// paths and the rules for touching them; opening them (opened.go) gives a
// verdict per file (fresh, behind, stale, broken, absent), and each entry
// point states its policy on those verdicts in a few lines. The pipeline
// (pipeline.go) is the one write path of Build, Update and Verify: it scans
// the CSV with package chunked, sorts the records with package sorter and
// packs them into pages (write.go) for a sink: a new file written with
// direct I/O (filesink.go), or Verify's comparison with the old one.
package index
