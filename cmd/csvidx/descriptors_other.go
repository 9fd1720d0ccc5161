//go:build !unix

package main

// checkDescriptors does nothing here: there is no ulimit -n.
func checkDescriptors(bool) error { return nil }
