// Package mapping maps files into memory (read-only, or a scratch file for
// reading and writing), tells the kernel how the mapping will be read, and
// turns a fault on mapped memory (the file shrank under the mapping) into
// an error instead of a crash.
package mapping

import (
	"errors"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/edsrzf/mmap-go"
)

// Advice says how a mapping will be read, so the kernel can pick its
// read-ahead.
type Advice int

const (
	// Normal leaves the kernel's default read-ahead.
	Normal Advice = iota
	// Random turns read-ahead off: a lookup touches a few scattered pages,
	// and the default read-ahead would read megabytes around each one.
	Random
	// Sequential asks for aggressive read-ahead, for full scans.
	Sequential
)

// Map is a mapping of a file's first bytes: read-only, unless Scratch made it.
type Map struct {
	m mmap.MMap
}

// File maps the first size bytes of f. A size of zero gives an empty
// mapping, which needs no system call.
func File(f *os.File, size int64, advice Advice) (*Map, error) {
	if size == 0 {
		return &Map{}, nil
	}
	if int64(int(size)) != size {
		return nil, errors.New("file too large to map on this platform")
	}
	m, err := mmap.MapRegion(f, int(size), mmap.RDONLY, 0, 0)
	if err != nil {
		return nil, err
	}
	advise(m, advice)
	return &Map{m: m}, nil
}

// Scratch maps the first size bytes of f, a temporary file of the
// process's own, for reading and writing: memory that the kernel may page
// out to f. Faults on it are caught by [Guard] as on any mapping.
func Scratch(f *os.File, size int64) (*Map, error) {
	if int64(int(size)) != size {
		return nil, errors.New("file too large to map on this platform")
	}
	m, err := mmap.MapRegion(f, int(size), mmap.RDWR, 0, 0)
	if err != nil {
		return nil, err
	}
	return &Map{m: m}, nil
}

// Advise tells the kernel how the mapping will be read from now on.
func (m *Map) Advise(a Advice) {
	if len(m.m) > 0 {
		advise(m.m, a)
	}
}

// Bytes returns the mapped bytes. Reading them may fault if the file
// shrinks: read them inside [Guard].
func (m *Map) Bytes() []byte { return m.m }

// Close unmaps the file. The bytes must not be used afterwards.
func (m *Map) Close() error {
	if m == nil || m.m == nil {
		return nil
	}
	err := m.m.Unmap()
	m.m = nil
	return err
}

// ErrFault is returned by [Guard] when mapped memory could not be read,
// which happens when the file was truncated after it was mapped.
var ErrFault = errors.New("mapped file shrank while being read")

// Guard runs fn so that a fault on the memory of maps makes fn return
// ErrFault instead of killing the process with SIGBUS. Any other panic,
// including a fault elsewhere (a bug in fn, say), goes on.
func Guard(fn func() error, maps ...*Map) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(interface{ Addr() uintptr }); ok && within(f.Addr(), maps) {
				err = ErrFault
				return
			}
			panic(r)
		}
	}()
	return fn()
}

// within reports whether addr lies in one of the mappings.
func within(addr uintptr, maps []*Map) bool {
	for _, m := range maps {
		if m == nil || len(m.m) == 0 {
			continue
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(m.m)))
		if addr >= start && addr-start < uintptr(len(m.m)) {
			return true
		}
	}
	return false
}
