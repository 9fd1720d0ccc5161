//go:build !unix

package cli

// checkDescriptors does nothing here: there is no ulimit -n.
func checkDescriptors(bool) error { return nil }
