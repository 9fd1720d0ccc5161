package index

import (
	"testing"

	"github.com/csvidx/csvidx/scan/chunked"
)

// useHash makes h the key hash of every build and lookup until the test
// ends (see testHash). Tests that use it must not run in parallel.
func useHash(t testing.TB, h func([]byte) uint64) {
	t.Helper()
	old := testHash
	testHash = h
	t.Cleanup(func() { testHash = old })
}

// tune forces tu on every scan until the test ends, or until the next call
// (see testTuning). Tests that use it must not run in parallel.
func tune(t testing.TB, tu chunked.Tuning) {
	t.Helper()
	old := testTuning
	testTuning = tu
	t.Cleanup(func() { testTuning = old })
}
