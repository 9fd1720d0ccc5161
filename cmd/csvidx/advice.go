package main

import (
	"errors"
	"strings"

	"github.com/csvidx/csvidx/index"
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
	switch {
	case errors.Is(err, index.ErrSeveral):
		msg += " with --by COLUMNS"
	case errors.Is(err, index.ErrNoIndex) && strings.HasSuffix(msg, "; build it"):
		msg += " (csvidx build FILE --key COLUMNS)"
	}
	return msg
}

// rebuildAdvice is e's message with the command line that builds the index
// again, with the options it was built with when its header says them.
func rebuildAdvice(e *index.RebuildError) string {
	cmd := e.Facts() + "; run csvidx build " + shellQuote(e.CSVPath)
	if b := e.Built; b == nil {
		cmd += " --key COLUMN"
	} else {
		cmd += " --key " + shellQuote(b.Key())
		if b.NoHeader {
			cmd += " --no-header"
		}
		if b.Delimiter != ',' {
			cmd += " --delimiter " + shellQuote(string([]byte{b.Delimiter}))
		}
	}
	if e.Update {
		cmd += " (the tail indexes rows appended after the main index; csvidx update rescans them)"
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell unless it needs no quotes.
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range []byte(s) {
		plain = plain && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:@%+=-", c) >= 0)
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
