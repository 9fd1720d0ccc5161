// Package cli is csvidx's command line: the cobra commands, one file each,
// thin over package index, the mapping of errors to exit statuses, and the
// end-to-end tests that run the real binary (testdata/script). cmd/csvidx
// is its main; scripts/man generates the man page from its tree.
package cli
