package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: its master, which reads what is
// written to the terminal, and the terminal (its slave) itself.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal: unlock: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal: its number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestJoinBarOnTerminal: with standard error a terminal and standard
// output a file, a join draws its bar there (from the start, its delay set
// to 0), the output is the join's, byte for byte, and the bar is erased at
// the end: the last thing written to the terminal is "\r", then "erase to
// the end of the line"; a join that fails (its output on a full disk)
// erases it before its error. With --quiet, or with standard output on the
// terminal too, nothing is drawn; nor when standard error is no terminal
// (TestJoinBarOff).
func TestJoinBarOnTerminal(t *testing.T) {
	defer func(d, e time.Duration) { joinBarDelay, joinBarEvery = d, e }(joinBarDelay, joinBarEvery)
	joinBarDelay, joinBarEvery = 0, time.Millisecond
	left, right, want := joinBarFiles(t)
	for _, c := range []struct {
		name     string
		args     []string
		ttyOut   bool // standard output is the terminal too
		drawn    bool
		exitWant int
		full     bool // standard output is /dev/full
	}{
		{"Drawn", nil, false, true, 0, false},
		{"Quiet", []string{"--quiet"}, false, false, 0, false},
		{"Q", []string{"-q"}, false, false, 0, false},
		{"OutputOnTheTerminal", nil, true, false, 0, false},
		{"Error", nil, false, true, 2, true},
	} {
		if c.full {
			if _, err := os.Stat("/dev/full"); err != nil {
				continue
			}
		}
		master, tty := openPTY(t)
		var got bytes.Buffer
		read := make(chan struct{})
		go func() {
			io.Copy(&got, master) // until the terminal is closed: EIO
			close(read)
		}()
		out, err := os.Create(filepath.Join(t.TempDir(), "out.csv"))
		if err != nil {
			t.Fatal(err)
		}
		stdout := out
		switch {
		case c.ttyOut:
			stdout = tty
		case c.full:
			if stdout, err = os.OpenFile("/dev/full", os.O_WRONLY, 0); err != nil {
				t.Fatal(err)
			}
			defer stdout.Close()
		}
		status := run(append([]string{"join", left, right, "--key", "k"}, c.args...), strings.NewReader(""), stdout, tty)
		tty.Close()
		select {
		case <-read:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the terminal's master reads on", c.name)
		}
		out.Close()
		if status != c.exitWant {
			t.Fatalf("%s: exit %d", c.name, status)
		}
		written, _ := os.ReadFile(out.Name())
		screen := got.String()
		if c.ttyOut {
			screen = strings.ReplaceAll(screen, "\r\n", "\n") // the terminal's own newline
			if screen != want {
				t.Errorf("%s: the terminal shows %d bytes, want the join's %d alone", c.name, len(screen), len(want))
			}
			continue
		}
		if c.full {
			erased, msg, _ := strings.Cut(screen, "\r\033[Kcsvidx: ")
			if !strings.HasPrefix(erased, "\rjoining [") || !strings.Contains(msg, "no space left on device") || strings.Count(screen, "\n") != 1 {
				t.Errorf("%s: the terminal shows %q; want the bar, erased, then the error", c.name, screen)
			}
			continue
		}
		if string(written) != want {
			t.Errorf("%s: %d bytes written, want %d", c.name, len(written), len(want))
		}
		if !c.drawn {
			if screen != "" {
				t.Errorf("%s: %q drawn", c.name, screen)
			}
			continue
		}
		if !strings.HasPrefix(screen, "\rjoining [") || !strings.Contains(screen, " rows out, ") || !strings.HasSuffix(screen, "\r\033[K") {
			t.Errorf("%s: the terminal shows %q; want the bar, then erased", c.name, screen)
		}
		if strings.Contains(screen, "\n") {
			t.Errorf("%s: the bar wrote a newline: %q", c.name, screen)
		}
	}
}
