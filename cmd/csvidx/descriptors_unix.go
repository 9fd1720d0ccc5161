//go:build unix

package main

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// minDescriptors is the fewest open files csvidx runs with. A writer holds
// at once the three standard files, the Go runtime's poller (two), the CSV,
// the lock, a new index and fence, up to four spill files and a directory
// to sync: 15. Below this number it refuses to start, with a message,
// rather than fail part way.
const minDescriptors = 20

// checkDescriptors refuses a limit on open files (ulimit -n) too low to
// run. With prime (a command that writes files or opens a keys file), it
// also starts the runtime's poller now: the runtime needs two descriptors
// for it at the first timer, or the first file opened through package os,
// and a process that had none left then would die with "fatal error:
// runtime: netpollinit failed" and a goroutine dump, where running out of
// descriptors must be an error like any other. So it checks that a few are
// free first. (Go raises the soft limit to the hard one at start: the
// limit read here is the one that holds.)
func checkDescriptors(prime bool) error {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err == nil && r.Cur < minDescriptors {
		return fmt.Errorf("this process may open only %d files (ulimit -n %d); csvidx needs %d: raise the limit", r.Cur, r.Cur, minDescriptors)
	}
	if !prime {
		return nil
	}
	var free [minFree]int
	n := 0
	for ; n < minFree; n++ {
		fd, err := unix.Dup(2)
		if err != nil {
			break
		}
		free[n] = fd
	}
	for _, fd := range free[:n] {
		unix.Close(fd)
	}
	if n < minFree {
		return fmt.Errorf("too many open files: this process has only %d descriptors free (ulimit -n %d); csvidx needs %d: raise the limit, or close files", n, r.Cur, minFree)
	}
	time.AfterFunc(time.Hour, func() {}).Stop() // a timer in the heap starts the poller
	return nil
}

// minFree is the fewest free descriptors a command that primes the poller
// starts with: the poller's two, the CSV, the lock and a new index.
const minFree = 5
