// Package layout holds no code: its test keeps the imports of csvidx's
// packages pointing one way, down the layers the README draws:
//
//	cmd/csvidx, python/capi → join → index → format → {keyspec, fence,
//	source, scan/chunked} → {scan, sorter} → internal/...
//
// A package imports only packages of lower layers, never one beside or
// above it; a new package is given its layer in the test's table.
package layout
