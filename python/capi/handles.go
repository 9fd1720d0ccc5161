package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/csvidx/csvidx/index"
)

// An open index is known to C only by a number. The *index.Index stays in
// Go's heap, in this table: cgo's rules forbid C from keeping Go pointers.
// Each entry has its own read-write lock: lookups hold it shared, so any
// number of threads look up at once, and close holds it exclusively, so an
// index is never unmapped under a lookup still reading it.
type handle struct {
	mu    sync.RWMutex
	ix    opened       // nil once closed
	close func() error // closes ix: its own Close, or its remote index's
}

// opened is an open index a handle holds: of one file (*index.Index), or
// of many files (*multifile.Index, opened by its manifest).
type opened interface {
	KeyColumns() []int
	Key(value []byte) ([]byte, error)
	Get(keys [][]byte, fn func(row []byte) error) error
	Count(key []byte) (int64, error)
	Header() ([]byte, error)
	Info() *index.Info
	BytesBehind() int64
	Check() error
}

var (
	handlesMu  sync.RWMutex
	handles    = map[int64]*handle{}
	lastHandle int64 // handles are 1, 2, 3...; 0 is never one
)

// errClosed is the error of a call with a handle that close released, or
// that open never returned.
var errClosed = errors.New("the index is closed (csvidx.Index.close was called)")

func addHandle(ix opened, close func() error) int64 {
	handlesMu.Lock()
	defer handlesMu.Unlock()
	lastHandle++
	handles[lastHandle] = &handle{ix: ix, close: close}
	return lastHandle
}

// withIndex calls fn with the index of handle h, which stays open until fn
// returns.
func withIndex(h int64, fn func(ix opened) error) error {
	handlesMu.RLock()
	hd := handles[h]
	handlesMu.RUnlock()
	if hd == nil {
		return errClosed
	}
	hd.mu.RLock()
	defer hd.mu.RUnlock()
	if hd.ix == nil {
		return errClosed
	}
	return fn(hd.ix)
}

// closeHandle forgets h and closes its index once no lookup uses it.
func closeHandle(h int64) error {
	handlesMu.Lock()
	hd := handles[h]
	delete(handles, h)
	handlesMu.Unlock()
	if hd == nil {
		return nil // closing twice is harmless, as for a file
	}
	hd.mu.Lock()
	ix := hd.ix
	hd.ix = nil
	hd.mu.Unlock()
	if ix == nil {
		return nil
	}
	return hd.close()
}

// cbuf is a growing buffer in C's heap: what a call returns to C is written
// straight into memory the caller frees with csvidx_free, not into a Go
// slice copied at the end.
type cbuf struct {
	p   unsafe.Pointer
	n   int
	cap int
}

const cbufMin = 4 << 10 // bytes of a buffer's first allocation

// Write appends data (io.Writer), growing the buffer with realloc; it
// fails only when C's heap has no room.
func (b *cbuf) Write(data []byte) (int, error) {
	if need := b.n + len(data); need > b.cap {
		c := max(2*b.cap, need, cbufMin)
		p := C.realloc(b.p, C.size_t(c))
		if p == nil {
			return 0, fmt.Errorf("out of memory: cannot allocate %d bytes for the rows found", c)
		}
		b.p, b.cap = p, c
	}
	copy(unsafe.Slice((*byte)(b.p), b.cap)[b.n:], data)
	b.n += len(data)
	return len(data), nil
}

// release frees the buffer: the call failed and returns nothing.
func (b *cbuf) release() {
	C.free(b.p)
	*b = cbuf{}
}

// Writers (build, update, verify) bound their records' memory with
// MemLimit, and join its bitmap of RIGHT's rows, as the CLI does, and also
// tell the Go runtime to collect harder near that bound
// (debug.SetMemoryLimit), so that the process stays near what
// mem_limit_mib says. Here the process is someone else's (Python's): the
// runtime's limit is set only while they run, to the sum of their
// limits, and restored when the last one ends; then the memory the build
// used is handed back to the system at once, not minutes later.
var (
	memMu      sync.Mutex
	memWriters int
	memSum     int64
	memSaved   int64
)

const runtimeSlack = 16 << 20 // bytes the Go runtime may use beyond the records' budget, as in the CLI

func limitMemory(limit int64) (release func()) {
	memMu.Lock()
	defer memMu.Unlock()
	if memWriters == 0 {
		memSaved = debug.SetMemoryLimit(-1)
	}
	memWriters++
	memSum += limit
	debug.SetMemoryLimit(memSum + runtimeSlack)
	return func() {
		memMu.Lock()
		defer memMu.Unlock()
		memWriters--
		memSum -= limit
		if memWriters == 0 {
			debug.SetMemoryLimit(memSaved)
			debug.FreeOSMemory()
		} else {
			debug.SetMemoryLimit(memSum + runtimeSlack)
		}
	}
}
