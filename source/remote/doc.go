// Package remote reads objects over HTTP and HTTPS by byte ranges: the
// remote CSVs and indexes of csvidx (issue 41), which a lookup reaches in a
// few round trips instead of a download.
//
// A Client opens an Object with a first ranged GET, which also gives its
// size (Content-Range) and its version (ETag), and reads it by ranges:
// ranges closer than the client's gap are coalesced into one GET, and the
// GETs of a call run at once, up to the client's Parallel (64) at a time. Every GET after the first
// carries If-Match with the object's ETag (a strong one: a weak ETag cannot
// be matched on, and such an object is read without the check), so that
// bytes of another version are never returned: a 412 answer, and a 416
// for a range the opened object had, are ErrChanged. Answers that are not
// what was asked (a 200 to a range request, from a server that ignores
// ranges; a Content-Range that is not the range asked) are errors that say
// so. A 5xx or 429 answer, a connection that fails and a body cut short
// are tried again, after Retry-After when the server gives one, else after
// a growing pause, up to the client's Retries; 403 and 404 are errors at
// once, in one line.
//
// A Client signs its requests with its Sign function when set (S3's SigV4),
// and counts what it does in its Stats: the requests, the round trips (the
// calls whose GETs run at once count one) and the bytes.
//
// The package links net/http, whose initialisation costs every process
// that links it: the default csvidx does not (see the remote build).
package remote
