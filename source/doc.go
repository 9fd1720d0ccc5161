// Package source is the door through which a CSV's bytes come in. A
// Source is the CSV's plain bytes by offset, fixed at opening, with what
// tells its version from another (Identity) and where a scan may cut it
// (Splits); Open picks the backend that reads a name.
//
// A local regular file of plain CSV is a File: mapped whole, which is also
// Mapped, its bytes zero-copy (Bytes), guarded against the file shrinking
// under the mapping (Guard). Open tells compressed data by its first bytes
// (Compression), whatever the file's name, from the mapping it made
// anyway: a plain file costs no read and no system call more.
//
// Compressed files are read by backends that other packages register
// (Register, from an init function; package compressed registers BGZF's,
// zstd's and plain gzip's): Open gives a compressed file to the first
// Backend whose Match accepts its first HeadLen bytes, and that backend's
// Source serves the plain bytes by offset. Package source links no decoder, so that a
// program that reads only plain files does not run a decoder's package
// initialisation at every start; it reads a compressed format when it
// imports the package of that format's backend. Remote CSVs are read the
// same way, by the opener a package registers for their URLs' scheme
// (RegisterOpener; package remote registers http's and https's), which
// links the HTTP client. Compressed data that no registered backend reads,
// and a URL that no opener reads, are refused with errors that say so (a
// *CompressedError, whose fields say the format and whether gzip is BGZF,
// so that a program can tell the user which build reads it).
// Registration is safe before main runs and at any time after; Open is
// safe for concurrent use.
//
// Stat and Check say whether a path can be a CSV that csvidx indexes
// without mapping it: writers stat the CSV before they take their lock,
// and readers that find no index ask why.
//
// It imports nothing of csvidx but the internal packages; package index,
// above it, opens every CSV through Open.
package source
