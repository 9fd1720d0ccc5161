package index

import (
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/xxh3"
)

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

// testFlat, when a test sets it, makes builds and compactions write main
// indexes in format 1, as csvidx did before format 2, so that the tests of
// reading format 1 have files to read (see useFlat in the tests).
var testFlat bool

// testFPBits, when a test sets it, is the rule for F instead of
// fingerprintBits's, so that a test can make an index outgrow its
// fingerprints without 2^26 rows (see useFPBits in the tests).
var testFPBits func(records uint64) int

// fingerprintBits returns F for an index of n records: format's rule, or
// testFPBits's when a test sets it.
func fingerprintBits(n uint64) int {
	if testFPBits != nil {
		return testFPBits(n)
	}
	return format.FingerprintBits(n)
}

// KeyHash returns the hash of keys that indexes keep (XXH3-64 of a key as
// [Index.Key] gives it): what picks a key's partition of an index over
// several files (package multifile), which must be the lookups' own.
func KeyHash() func([]byte) uint64 { return keyHash() }
