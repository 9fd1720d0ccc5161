package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress draws a one-line progress bar on standard error when it is a
// terminal, and nothing otherwise. A nil *progress is a valid, silent bar.
//
// It is written here rather than taken from a library: the usual one
// (schollz/progressbar) imports net/http, which adds about 0.6 ms of
// package initialisation to every csvidx process, including every get
// that never shows a bar (the README has the measurement).
type progress struct {
	w     io.Writer
	label string
	start time.Time
	last  time.Time
	drawn bool
}

const (
	redrawEvery = 100 * time.Millisecond // the bar is redrawn at most this often
	barWidth    = 30                     // characters between the brackets
)

// newProgress returns a bar for w, or nil when w is not a terminal.
func newProgress(w io.Writer, label string) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: w, label: label, start: time.Now()}
}

// update shows that done of total bytes are processed.
func (p *progress) update(done, total int64) {
	if p == nil || total <= 0 || done < total && time.Since(p.last) < redrawEvery {
		return
	}
	p.last = time.Now()
	filled := int(barWidth * done / total)
	secs := time.Since(p.start).Seconds()
	rate := float64(done) / max(secs, 1e-9)
	eta := ""
	if done > 0 && done < total {
		eta = fmt.Sprintf(", %ds left", int(float64(total-done)/rate+0.5))
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %s of %s, %s/s%s\033[K", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), 100*done/total,
		formatBytes(done), formatBytes(total), formatBytes(int64(rate)), eta)
	p.drawn = true
}

// finish erases the bar.
func (p *progress) finish() {
	if p != nil && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
