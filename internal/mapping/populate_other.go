//go:build !linux

package mapping

// Populate does nothing here.
func (m *Map) Populate(from, to int) {}

// Release does nothing here: see the Linux build's.
func (m *Map) Release(from, to int) {}
