package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/csvidx/csvidx/join"
	"golang.org/x/term"
)

// A join's progress bar: one line on standard error, redrawn a few times a
// second from the join's counters (join.Join.Progress, a few atomic loads:
// nothing is done per row), from joinBarDelay on, so that a short join
// draws nothing. It shows how far LEFT has been read (of its size when it
// is a regular file, with a bar; else its bytes and rows), the rows
// written, the rate, and, once LEFT has ended, how far the modes that go
// through RIGHT then have got. It is drawn only when standard error is a
// terminal and standard output is not (rows on the screen would run into
// it), never with --quiet, and fits the terminal's width.
// Variables, for tests.
var (
	joinBarDelay = time.Second            // no bar before a join has run this long
	joinBarEvery = 250 * time.Millisecond // the bar is redrawn this often
)

// joinBarOn reports whether a join draws its bar: stderr a terminal,
// stdout not, and not quiet.
func joinBarOn(stdout, stderr io.Writer, quiet bool) bool {
	return !quiet && terminalWidth(stderr) >= 0 && terminalWidth(stdout) < 0
}

// terminalWidth returns the width of w when it is a terminal (0 when it
// cannot tell), or -1 when it is not one.
func terminalWidth(w io.Writer) int {
	if o, ok := w.(*stdoutWriter); ok {
		w = o.w
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return -1
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

// startJoinBar draws the progress of j on w until stop is called, which
// erases the bar (when it was drawn) before it returns; size is LEFT's
// size when it is a regular file, else 0.
func startJoinBar(w io.Writer, j *join.Join, size int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	drawn := false
	start := time.Now()
	wg.Go(func() {
		if joinBarDelay > 0 {
			select {
			case <-done:
				return
			case <-time.After(joinBarDelay):
			}
		}
		tick := time.NewTicker(joinBarEvery)
		defer tick.Stop()
		var right time.Time // when the pass through RIGHT began
		for {
			p := j.Progress()
			if p.RightTotal > 0 && right.IsZero() {
				right = time.Now()
			}
			fmt.Fprintf(w, "\r%s\033[K", joinBarLine(p, size, time.Since(start), time.Since(right), max(0, terminalWidth(w))))
			drawn = true
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		if drawn {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}

// joinBarLine is the line the bar draws for p, after elapsed (since the
// join began) and sinceRight (since the pass through RIGHT after LEFT
// began, when p.RightTotal is not 0), for a LEFT of size bytes (0: not a
// regular file, of unknown size), on a terminal width columns wide (0:
// unknown). The bar narrows to fit, and goes when it would be too narrow;
// then the text is cut. For example:
//
//	joining [=========                     ]  31% 1.2 GiB of 3.9 GiB, 2,134,020 rows out, 152.0 MiB/s, 18s left
//	joining 1.2 GiB, 9,921,356 rows in, 2,134,020 rows out, 152.0 MiB/s
//	reading RIGHT [==========                    ]  34% 33.1 MiB of 97.2 MiB, 8,412 rows out, 61.0 MiB/s, 1s left
func joinBarLine(p join.Progress, size int64, elapsed, sinceRight time.Duration, width int) string {
	out := counted(p.Rows, "row") + " out"
	label, done, total := "joining", p.LeftBytes, size
	if p.RightTotal > 0 {
		label, done, total, elapsed = "reading RIGHT", p.RightBytes, p.RightTotal, sinceRight
	}
	if total > 0 {
		done = min(done, total) // a LEFT that grew as it was read
	}
	rate := formatBytes(int64(float64(done)/max(elapsed.Seconds(), 1e-9))) + "/s"
	if total <= 0 {
		line := fmt.Sprintf("%s %s, %s in, %s, %s", label, formatBytes(done), counted(p.LeftRows, "row"), out, rate)
		return fitWidth(line, width)
	}
	eta := ""
	if done > 0 && done < total {
		eta = fmt.Sprintf(", %ds left", int(float64(total-done)/float64(done)*elapsed.Seconds()+0.5))
	}
	text := fmt.Sprintf("%3d%% %s of %s, %s, %s%s", 100*done/total, formatBytes(done), formatBytes(total), out, rate, eta)
	bw := barWidth
	if width > 0 {
		bw = min(bw, width-1-len(label)-len(" [] ")-len(text)) // the last column stays free: no wrap
	}
	if bw < 5 {
		return fitWidth(label+" "+text, width)
	}
	filled := int(int64(bw) * done / total)
	return fmt.Sprintf("%s [%s%s] %s", label, strings.Repeat("=", filled), strings.Repeat(" ", bw-filled), text)
}

// fitWidth returns line cut to width-1 bytes (the line is ASCII), or whole when
// width is 0.
func fitWidth(line string, width int) string {
	if width > 0 && len(line) > width-1 {
		return line[:width-1]
	}
	return line
}

// counted writes n, with commas between groups of three digits, and its
// noun: 1 row, 2,134,020 rows.
func counted(n int64, noun string) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n != 1 {
		noun += "s"
	}
	return s + " " + noun
}
