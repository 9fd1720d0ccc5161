package keyspec

import (
	"bytes"
	"fmt"
)

// DelimiterError is the error for a key that names no column of the CSV's
// header (ErrColumn) or that no row has (index.ErrNoKeys), when the header is one
// field that holds another common delimiter: the file is most likely
// separated by Guess, not by the delimiter it was read with.
type DelimiterError struct {
	// Err says what is wrong, without the fix; it wraps ErrColumn or
	// index.ErrNoKeys.
	Err error
	// Guess is the delimiter the header's one field holds.
	Guess byte
}

// Facts returns what is wrong, without what to do about it.
func (e *DelimiterError) Facts() string { return e.Err.Error() }

// Error returns the facts and, in neutral words, the fix.
func (e *DelimiterError) Error() string {
	return fmt.Sprintf("%s; that column holds %q: give the file's delimiter", e.Facts(), string([]byte{e.Guess}))
}

// Unwrap returns Err.
func (e *DelimiterError) Unwrap() error { return e.Err }

// guesses are the delimiters a header of one field is looked at for.
var guesses = []byte{',', ';', '\t', '|'}

// guessDelimiter returns the delimiter other than delim that a header of
// one field, read with delim, holds most often, or 0 if it holds none (or
// the header is not one field).
func guessDelimiter(fields [][]byte, delim byte) byte {
	if len(fields) != 1 {
		return 0
	}
	best, most := byte(0), 0
	for _, g := range guesses {
		if n := bytes.Count(fields[0], []byte{g}); g != delim && n > most {
			best, most = g, n
		}
	}
	return best
}

// OrDelimiter returns facts, the error of a key that names no column or
// that no row has, with fix added, or as a *DelimiterError when the header
// fields read with delim look separated by another delimiter.
func OrDelimiter(facts error, fields [][]byte, delim byte, fix string) error {
	if g := guessDelimiter(fields, delim); g != 0 {
		return &DelimiterError{Err: facts, Guess: g}
	}
	return fmt.Errorf("%w; %s", facts, fix)
}
