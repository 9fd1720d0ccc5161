//go:build !linux

package atomicfile

// mapHuge returns no memory where huge pages cannot be asked for: the
// buffer comes from the heap.
func mapHuge(int) ([]byte, func() error, error) { return nil, nil, nil }
