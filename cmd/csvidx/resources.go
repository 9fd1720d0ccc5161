package main

import (
	"fmt"
	"runtime/debug"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/pflag"
)

// resourceFlags are the flags of the commands that build an index: how much
// memory the records may take and where they may spill.
type resourceFlags struct {
	memLimitMiB int
	tmpDir      string
	threads     int
}

const (
	defaultMemLimitMiB = 1024     // --mem-limit-mib when not given
	runtimeSlack       = 16 << 20 // bytes the Go runtime may use beyond the records' budget
)

func (r *resourceFlags) addFlags(f *pflag.FlagSet) {
	f.IntVar(&r.memLimitMiB, "mem-limit-mib", defaultMemLimitMiB, "memory the index records may take, in MiB; beyond it they spill to disk")
	f.StringVar(&r.tmpDir, "tmp-dir", "", "`DIR` for spill files (default: next to the index)")
	f.IntVarP(&r.threads, "threads", "j", 0, "threads that scan and sort: 0 for all cores, 1 for a sequential build")
}

// resources checks the flags and returns the library's options. It also
// tells the Go runtime to collect garbage harder near the limit, so that the
// process's memory stays near what the flag says.
func (r *resourceFlags) resources() (index.Resources, error) {
	if r.memLimitMiB < 1 {
		return index.Resources{}, fmt.Errorf("--mem-limit-mib %d: give at least 1", r.memLimitMiB)
	}
	if r.threads < 0 {
		return index.Resources{}, fmt.Errorf("--threads %d: give 0 (all cores) or more", r.threads)
	}
	limit := int64(r.memLimitMiB) << 20
	debug.SetMemoryLimit(limit + runtimeSlack)
	return index.Resources{MemLimit: limit, TmpDir: r.tmpDir, Threads: r.threads}, nil
}
