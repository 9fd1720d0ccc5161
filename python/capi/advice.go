package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/csvidx/csvidx/index"
)

// The index package says what is wrong with an index, or with a lock held
// by another writer, and words the fix neutrally ("rebuild the index");
// the binding words it as the Python call to make. What is wrong reads as
// the csvidx command says it.

// advise returns err's message with the fixes of an index to build again
// and of a held lock worded as Python calls (see index.Reword).
func advise(err error) string {
	msg := index.Reword(err, rebuildAdvice, func(e *index.LockedError) string {
		return e.Facts() + "; try again when it is done, or pass no_wait=False to wait"
	})
	if errors.Is(err, index.ErrSeveral) {
		msg += " with by=..."
	}
	return optionNames.Replace(msg)
}

// optionNames names the options the index package's messages advise as
// the binding's keyword arguments.
var optionNames = strings.NewReplacer(
	index.OptIndexPath, "(index_path)",
	index.OptIndexDir, "(index_dir, CSVIDX_INDEX_DIR)",
)

// rebuildAdvice is e's message with the csvidx.build call that builds the
// index again, with the options it was built with when its header says
// them (python/csvidx/_api.py's keywords).
func rebuildAdvice(e *index.RebuildError) string {
	call := "csvidx.build(" + pyRepr(e.CSVPath) + ", key="
	if b := e.Built; b == nil {
		call += "COLUMN"
	} else {
		if b.KeyName == "" && b.KeyColumns == nil {
			call += strconv.Itoa(b.KeyColumn)
		} else {
			call += pyRepr(b.Key())
		}
		if b.NoHeader {
			call += ", no_header=True"
		}
		if b.Delimiter != ',' {
			call += ", delimiter=" + pyDelimiter(b.Delimiter)
		}
	}
	msg := e.Facts() + "; call " + call + ")"
	if e.Update {
		msg += " (the tail indexes rows appended after the main index; csvidx.update rescans them)"
	}
	return msg
}

// pyDelimiter writes the delimiter byte d as the Python value that
// csvidx.build takes for it: a str for an ASCII byte, else bytes (a str
// is encoded as UTF-8, which makes other bytes two).
func pyDelimiter(d byte) string {
	if d < utf8.RuneSelf {
		return pyRepr(string([]byte{d}))
	}
	return fmt.Sprintf(`b'\x%02x'`, d)
}

// pyRepr writes s as Python's repr writes the str that s decodes to, as
// Python decodes paths (os.fsdecode) and csvidx encodes str arguments: as
// UTF-8, a byte that is not UTF-8 taken as a lone surrogate
// (surrogateescape, \udcXX).
func pyRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\udc%02x`, s[i])
		case r == '\\' || r == quote:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r): // letters, marks, numbers, punctuation, symbols and ' ', as Python's isprintable
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	b.WriteRune(quote)
	return b.String()
}
