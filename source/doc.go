// Package source is the door through which a CSV's bytes come in. A
// Source is the CSV's plain bytes by offset, fixed at opening, with what
// tells its version from another (Identity) and where a scan may cut it
// (Splits); Open picks the backend that reads a name. Today there is one
// backend, File: a local regular file mapped whole, which is also Mapped,
// its bytes zero-copy (Bytes), guarded against the file shrinking under the
// mapping (Guard). A URL and compressed data are refused with errors that
// say so (Compression tells the formats by their magic); the backends that
// read them (a compressed file whose ReadAt serves plain offsets, a remote
// object) are to come behind the same interface.
//
// Stat and Check say whether a path can be a CSV that csvidx indexes
// without mapping it: writers stat the CSV before they take their lock,
// and readers that find no index ask why.
//
// It imports nothing of csvidx but the internal packages; package index,
// above it, opens every CSV through Open.
package source
