package run

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

// floorWrite is the size of WriteFloor's writes: the index writer's with a
// budget of 512 MiB or more (index.bigWrite).
const floorWrite = 4 << 20

// WriteFloor writes size bytes (rounded up to 4 MiB) to a new file in dir
// the way a build writes its index: direct I/O where the file system allows
// it, 4 MiB at a time, one write in flight, then fsync. It returns how long
// that took: on a slow disk it is a floor under the build's time after the
// scan, the same at every thread count. The file is removed afterwards,
// untimed.
func WriteFloor(dir string, size int64) (time.Duration, error) {
	f, err := os.CreateTemp(dir, "write-floor-*")
	if err != nil {
		return 0, err
	}
	name := f.Name()
	defer os.Remove(name)
	defer f.Close()
	start := time.Now()
	if err := writeFloor(f, size); err != nil {
		return 0, fmt.Errorf("write floor: %w", err)
	}
	return time.Since(start), nil
}

// writeFloor writes size bytes, rounded up to floorWrite, to f from the
// start, with direct I/O where the file system allows it, and syncs f.
func writeFloor(f *os.File, size int64) error {
	if err := setDirect(f); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	buf := atomicfile.AlignedBlocks(floorWrite / atomicfile.BlockSize)
	for i := range buf {
		buf[i] = byte(i) // not zeros, which a virtual disk might not store
	}
	for off := int64(0); off < size; off += floorWrite {
		if _, err := f.WriteAt(buf, off); err != nil {
			return err
		}
	}
	return f.Sync()
}
