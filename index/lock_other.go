//go:build !unix

package index

import "os"

// flock is not implemented here: writers are not serialized.
func flock(*os.File, bool) error { return nil }
