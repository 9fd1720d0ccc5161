// Package remoteindex looks up keys in a remote CSV through its remote
// index (issue 41): the CSV and its index files are objects read by byte
// ranges (package remote), and the index files are fetched in part into a
// local cache, so that a lookup costs three round trips cold, whatever the
// sizes of the files:
//
//  1. at once: the main index's header page, its fence and its tail (each
//     whole; either may be missing), and the CSV's first and last 64 KiB,
//     which the index's freshness check reads;
//  2. the record pages the fence names for the keys (index.PageRanges),
//     coalesced, those not in the cache already;
//  3. the candidate rows, read from the byte before each, coalesced.
//
// Every read after a first carries If-Match with the object's ETag, so no
// byte of another version is used: an index that changed during a lookup
// is opened again, once; a CSV that changed is the error that says the
// index is to be built again. The cache is keyed by the index's URL and
// ETag, never by name alone.
package remoteindex
