package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/source"
)

// The index package says what is wrong with an index, or with a lock held
// by another writer, and words the fix neutrally ("rebuild the index");
// the CLI words it as the command to run.

// advise returns err's message with the fixes of an index to build again
// and of a held lock worded as the CLI's (see index.Reword).
func advise(err error) string {
	msg := index.Reword(err, rebuildAdvice, func(e *index.LockedError) string {
		return e.Facts() + "; try again when it is done, or leave out --no-wait to wait"
	})
	msg = optionNames.Replace(msg)
	var de *index.DelimiterError
	if errors.As(err, &de) {
		msg = strings.Replace(msg, de.Error(), fmt.Sprintf("%s; that column holds %q: give --delimiter %s",
			de.Facts(), string([]byte{de.Guess}), delimiterFlag(de.Guess)), 1)
	}
	var ce *source.CompressedError
	if errors.As(err, &ce) {
		msg = strings.Replace(msg, ce.Error(), decompressAdvice(ce), 1)
	}
	switch {
	case errors.Is(err, index.ErrSeveral):
		msg += " with --by COLUMNS"
	case errors.Is(err, index.ErrNoIndex) && strings.HasSuffix(msg, "; build it"):
		msg += " (csvidx build FILE --key COLUMNS)"
	}
	return msg
}

// optionNames names the options the index package's messages advise as
// the CLI's flags.
var optionNames = strings.NewReplacer(
	index.OptIndexPath, "(--index)",
	index.OptIndexDir, "(--index-dir, CSVIDX_INDEX_DIR)",
)

// rebuildAdvice is e's message with the command line that builds the index
// again, with the options it was built with when its header says them.
func rebuildAdvice(e *index.RebuildError) string {
	cmd := e.Facts() + "; run " + buildCommand(e.CSVPath, e.IndexPath, e.Built)
	if e.Update {
		cmd += " (the tail indexes rows appended after the main index; csvidx update rescans them)"
	}
	return cmd
}

// buildCommand returns the command line that builds the index of the CSV
// at csvPath at idxPath (or its tail's path) again, with the options b
// says; b nil: the options are not known. It gives --index when a build
// without it would put the index elsewhere: not next to the CSV, where
// csvidx names its indexes (an index directory's are found only with it
// too, by a build that may run without the same flag or variable).
func buildCommand(csvPath, idxPath string, b *index.Definition) string {
	cmd := "csvidx build " + shellQuote(csvPath)
	if main := strings.TrimSuffix(idxPath, ".tail"); main != "" && !index.IsNextTo(csvPath, main) {
		cmd += " --index " + shellQuote(main)
	}
	if b == nil {
		cmd += " --key COLUMN"
	} else {
		cmd += " --key " + shellQuote(b.Key())
		if b.NoHeader {
			cmd += " --no-header"
		}
		// Said whenever it is not a comma (as it was before .tsv files
		// were read by tabs by default), and for a comma where the file's
		// default is not one.
		if b.Delimiter != ',' || index.DefaultDelimiter(csvPath) != ',' {
			cmd += " --delimiter " + delimiterFlag(b.Delimiter)
		}
	}
	return cmd
}

// delimiterFlag writes the delimiter d as --delimiter takes it: '\t' for
// a tab, as csvidx spells it, else the byte quoted for the shell.
func delimiterFlag(d byte) string {
	if d == '\t' {
		return `'\t'`
	}
	return shellQuote(string([]byte{d}))
}

// shellQuote quotes s for a shell unless it needs no quotes: in single
// quotes, or, when s holds a control byte, in ANSI-C quotes ($'a\nb', as
// ls and GNU coreutils quote such names: bash, zsh, ksh and POSIX.1-2024 sh
// read them), so that a command in a message is one line that runs as
// written.
func shellQuote(s string) string {
	plain, control := s != "", false
	for _, c := range []byte(s) {
		plain = plain && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:@%+=-", c) >= 0)
		control = control || c < 0x20 || c == 0x7f
	}
	switch {
	case plain:
		return s
	case !control:
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for _, c := range []byte(s) {
		switch c {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteString(oneLine(string(c))) // \n, \r, \t, \xHH, or c
		}
	}
	b.WriteByte('\'')
	return b.String()
}
