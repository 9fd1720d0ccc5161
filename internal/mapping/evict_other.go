//go:build !linux

package mapping

import "errors"

var errNoEvict = errors.New("evicting pages from the cache is only implemented on Linux")

// Evict is only implemented on Linux.
func (m *Map) Evict(string) error { return errNoEvict }

// Resident is only implemented on Linux.
func (m *Map) Resident() (int, error) { return 0, errNoEvict }

// ResidentIn is only implemented on Linux.
func (m *Map) ResidentIn(int) (int, error) { return 0, errNoEvict }

// WillNeedFile does nothing here.
func WillNeedFile(string, int64, ...int64) {}

// WillNeedAll does nothing here.
func (m *Map) WillNeedAll() {}

// WillNeed does nothing here.
func (m *Map) WillNeed([]uint64) {}
