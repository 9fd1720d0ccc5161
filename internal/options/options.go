// Package options checks the values of the options that the command line
// and the Python binding both take, so that both accept the same values and
// refuse the others with the same message. The messages name the options as
// the documentation does, by their flags.
package options

import (
	"fmt"

	"github.com/csvidx/csvidx/index"
)

// MaxMemLimitMiB is the largest --mem-limit-mib: 1 TiB of MiB, far beyond
// any machine, and small enough that the limit in bytes fits in an int64.
const MaxMemLimitMiB = 1 << 40

// MaxThreads is the largest --threads: a build runs no more workers than
// four per core, or than its file and memory budget have room for, however
// many are asked for; a number beyond this one is a mistake.
const MaxThreads = 1024

// Delimiter reads a --delimiter value: one byte, or \t or "tab".
func Delimiter(s string) (byte, error) {
	switch s {
	case `\t`, "tab":
		return '\t', nil
	}
	if len(s) != 1 {
		return 0, fmt.Errorf("--delimiter %q: give one byte, or '\\t' for tabs", s)
	}
	return s[0], nil
}

// Resources checks --mem-limit-mib, --threads and --tmp-dir and returns the
// library's options.
func Resources(memLimitMiB int64, threads int64, tmpDir string) (index.Resources, error) {
	switch {
	case memLimitMiB < 1:
		return index.Resources{}, fmt.Errorf("--mem-limit-mib %d: give at least 1", memLimitMiB)
	case memLimitMiB > MaxMemLimitMiB:
		return index.Resources{}, fmt.Errorf("--mem-limit-mib %d: give at most %d", memLimitMiB, int64(MaxMemLimitMiB))
	case threads < 0:
		return index.Resources{}, fmt.Errorf("--threads %d: give 0 (all cores) or more", threads)
	case threads > MaxThreads:
		return index.Resources{}, fmt.Errorf("--threads %d: give at most %d (a build uses at most four threads per core)", threads, MaxThreads)
	}
	return index.Resources{MemLimit: memLimitMiB << 20, TmpDir: tmpDir, Threads: int(threads)}, nil
}
