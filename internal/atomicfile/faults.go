package atomicfile

import (
	"os"
	"sync/atomic"
)

// Faults, when set, is consulted before every operation that changes files
// on disk ("create", "write", "sync", "rename", "syncdir", "remove"), with
// the path it is about to change: an error it returns becomes the
// operation's error, and it may also stop the process there. Crash tests
// use it to fail, or kill the process at, each operation in turn; it is nil
// otherwise.
var faults atomic.Pointer[func(op, path string) error]

// SetFaults installs fn as the fault hook (nil removes it). For tests.
func SetFaults(fn func(op, path string) error) {
	if fn == nil {
		faults.Store(nil)
		return
	}
	faults.Store(&fn)
}

// fault asks the hook about an operation.
func fault(op, path string) error {
	if fn := faults.Load(); fn != nil {
		return (*fn)(op, path)
	}
	return nil
}

// Remove removes the file at path, through the fault hook: the writers'
// removals of files that were part of an index.
func Remove(path string) error {
	if err := fault("remove", path); err != nil {
		return err
	}
	return os.Remove(path)
}
