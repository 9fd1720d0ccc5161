package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// proc is what one run of a command did.
type proc struct {
	Seconds     float64 `json:"seconds"`
	PeakAnonMiB float64 `json:"peak_anon_mib"` // highest RssAnon, polled every 5 ms
	MaxRSSMiB   float64 `json:"maxrss_mib"`    // ru_maxrss: every resident page, the CSV's mapped ones too
	Exit        int     `json:"exit"`          // -1 when killed by a signal
	TimedOut    bool    `json:"timed_out,omitempty"`
	Stdout      []byte  `json:"-"`
	Stderr      string  `json:"stderr,omitempty"`
}

// measure runs name with args and kills it after timeout. It times the run, polls the process's RssAnon
// (which leaves out the CSV's mapped pages: file pages, which the kernel
// can drop) and reads its ru_maxrss at the end. The error is only for a
// command that could not start.
func measure(timeout time.Duration, name string, args ...string) (proc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	peak, err := run.Poll(cmd)
	if cmd.ProcessState == nil { // it did not start
		return proc{}, err
	}
	p := proc{Seconds: time.Since(start).Seconds(), PeakAnonMiB: float64(peak) / 1024,
		Stdout: out.Bytes(), Stderr: errb.String(), TimedOut: ctx.Err() != nil}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return p, err
	}
	p.Exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.MaxRSSMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return p, nil
}
