package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows a progress bar on standard error when it is a terminal,
// and nothing otherwise. A nil *progress is a valid, silent bar.
type progress struct {
	w     io.Writer
	label string
	bar   *progressbar.ProgressBar
}

// newProgress returns a bar for w, or nil when w is not a terminal.
func newProgress(w io.Writer, label string) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: w, label: label}
}

// update shows that done of total bytes are processed.
func (p *progress) update(done, total int64) {
	if p == nil {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.label),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Set64(done)
}

// finish removes the bar.
func (p *progress) finish() {
	if p != nil && p.bar != nil {
		p.bar.Finish()
	}
}
