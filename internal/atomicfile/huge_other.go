//go:build !linux

package atomicfile

// adviseHuge does nothing where huge pages cannot be asked for.
func adviseHuge([]byte) {}
