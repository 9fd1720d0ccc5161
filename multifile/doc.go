// Package multifile indexes many CSV files as one: their rows, read as one
// CSV (a source.Concat: the first file whole, then each other one without
// its header), are indexed by one key, and a lookup of a key prints its
// rows from whichever files hold them, and can say which.
//
// What it writes is a manifest, a small JSON file, and the index files it
// lists. The manifest names the files (the parts) in order, with what
// tells each one's version (its size and the hashes of its ends, as an
// index's header holds its CSV's), and the index files: partitions of the
// index by the key hash, one file each (a key's is its hash modulo their
// number), each an ordinary index of the concatenation that holds the
// keys of its partition. A build on one machine writes one partition.
// Each build of a manifest is a run: its index files are named after the
// run, the manifest is replaced atomically once they are all written, and
// the files of the run it replaced are removed only then, so that a reader
// finds the old manifest and its files, or the new ones.
//
// A lookup reads the manifest, opens the partition of its key, and reads
// the rows from the parts, each checked against the manifest when first
// read: a part that changed since the build is the stale-index error.
//
// See docs/distributed.md for the design, and the steps that build the
// partitions on several machines.
package multifile
