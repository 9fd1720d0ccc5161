//go:build !linux

package mapping

// Populate does nothing here.
func (m *Map) Populate(from, to int) {}
