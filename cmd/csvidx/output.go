package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
)

// stdoutWriter is standard output, remembering its first write error, so
// that a command whose report could not be written (a full disk, a closed
// file) exits 2 saying so, whatever the command made of the error.
type stdoutWriter struct {
	w     io.Writer
	err   error
	wrote bool // something was written (see runHelper)
}

func (o *stdoutWriter) Write(p []byte) (int, error) {
	o.wrote = o.wrote || len(p) > 0
	n, err := o.w.Write(p)
	if err != nil && o.err == nil {
		o.err = err
	}
	return n, err
}

// Stat tells what file standard output is, when it is one (for join's
// check that it does not write into its own input).
func (o *stdoutWriter) Stat() (fs.FileInfo, error) {
	if f, ok := o.w.(interface{ Stat() (fs.FileInfo, error) }); ok {
		return f.Stat()
	}
	return nil, errors.ErrUnsupported
}

// failed returns the error to report for standard output, if writing it
// failed: none for a reader that stopped reading (EPIPE: csvidx get ... |
// head has what it wanted).
func (o *stdoutWriter) failed() error {
	if o.err == nil || errors.Is(o.err, syscall.EPIPE) {
		return nil
	}
	return fmt.Errorf("write standard output: %w", o.err)
}

// oneLine escapes the control bytes of an error message as Go's %q does
// (a newline is \n), so that every error stays one line of plain text
// whatever the paths, column names and keys in it hold.
func oneLine(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// keyArgs rewrites get's command line so that an argument that looks like
// a negative number (-5, -0.5) is a key, not a flag, as Python's argparse
// reads it: no flag of get is a digit. The keys go after a "--", in their
// order; the flags and their values stay before it.
func keyArgs(args []string) []string {
	if len(args) == 0 || args[0] != "get" {
		return args
	}
	var flags, keys []string
	negative := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			keys = append(keys, args[i+1:]...)
			i = len(args)
		case looksNegative(a):
			keys = append(keys, a)
			negative = true
		case strings.HasPrefix(a, "-") && a != "-":
			flags = append(flags, a)
			if takesValue(a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			keys = append(keys, a)
		}
	}
	if !negative {
		return args
	}
	out := append([]string{"get"}, flags...)
	return append(append(out, "--"), keys...)
}

// takesValue reports whether a flag of get, given without "=", takes the
// next argument as its value.
func takesValue(flag string) bool {
	return flag == "--keys-file" || flag == "--index"
}

// looksNegative reports whether a looks like a negative number: a minus,
// then digits, with at most one point among them.
func looksNegative(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	digits, points := 0, 0
	for _, c := range []byte(a[1:]) {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

// quietUsage is the help of the writers' --quiet flag.
const quietUsage = "print nothing on success but notes and warnings (errors are always printed)"

// reporter is where a writer's report of what it did goes: standard error,
// or nowhere with --quiet. Notes, warnings and errors go to standard error
// either way.
func reporter(stderr io.Writer, quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return stderr
}
