package index

import "github.com/csvidx/csvidx/internal/xxh3"

// testHash, when a test sets it, is the key hash of every build, update,
// verify and lookup instead of XXH3-64, so that a test can force hash
// collisions or a skewed spread of hashes. It is nil outside tests, and a
// test that sets it restores it (see useHash in the tests).
var testHash func([]byte) uint64

// keyHash returns the key hash: XXH3-64, or a test's.
func keyHash() func([]byte) uint64 {
	if testHash != nil {
		return testHash
	}
	return xxh3.Hash
}
