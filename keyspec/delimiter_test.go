package keyspec

import (
	"errors"
	"fmt"
	"testing"
)

// TestGuessDelimiter: a header of one field that holds another common
// delimiter, the one it holds most.
func TestGuessDelimiter(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields []string
		delim  byte
		want   byte
	}{
		{"Semicolon", []string{"id;user"}, ',', ';'},
		{"Tab", []string{"id\tuser"}, ',', '\t'},
		{"Pipe", []string{"id|user"}, ',', '|'},
		{"CommaUnderSemicolon", []string{"id,user"}, ';', ','},
		{"Most", []string{"a|b;c;d"}, ',', ';'},
		{"OwnDelimiterQuoted", []string{"a,b"}, ',', 0},
		{"Plain", []string{"id"}, ',', 0},
		{"TwoFields", []string{"a;b", "c"}, ',', 0},
		{"NoHeader", nil, ',', 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fields [][]byte
			for _, f := range c.fields {
				fields = append(fields, []byte(f))
			}
			if got := guessDelimiter(fields, c.delim); got != c.want {
				t.Errorf("guessDelimiter(%q, %q) = %q, want %q", c.fields, c.delim, got, c.want)
			}
		})
	}
}

// TestOrDelimiter: facts with the fix added when the header does not look
// separated by another delimiter, else a *DelimiterError that guesses it
// and drops the fix; either way the facts stay in the chain for errors.Is.
func TestOrDelimiter(t *testing.T) {
	facts := fmt.Errorf("%w \"user\": the header has 1 column", ErrColumn)
	for _, c := range []struct {
		name   string
		fields []string
		delim  byte
		guess  byte // 0: not a *DelimiterError
		want   string
	}{
		{"Semicolon", []string{"id;user"}, ',', ';', `no such column "user": the header has 1 column; that column holds ";": give the file's delimiter`},
		{"Pipe", []string{"a|b|c"}, '\t', '|', `no such column "user": the header has 1 column; that column holds "|": give the file's delimiter`},
		{"Tab", []string{"id\tuser"}, ';', '\t', `no such column "user": the header has 1 column; that column holds "\t": give the file's delimiter`},
		{"Plain", []string{"id"}, ',', 0, `no such column "user": the header has 1 column; give a name`},
		{"TwoFields", []string{"id;x", "user"}, ',', 0, `no such column "user": the header has 1 column; give a name`},
		{"OwnDelimiter", []string{"id;user"}, ';', 0, `no such column "user": the header has 1 column; give a name`},
		{"NoHeader", nil, ',', 0, `no such column "user": the header has 1 column; give a name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fields [][]byte
			for _, f := range c.fields {
				fields = append(fields, []byte(f))
			}
			err := OrDelimiter(facts, fields, c.delim, "give a name")
			if err == nil || err.Error() != c.want {
				t.Fatalf("OrDelimiter = %v\nwant %s", err, c.want)
			}
			if !errors.Is(err, facts) || !errors.Is(err, ErrColumn) {
				t.Errorf("OrDelimiter = %v: not the facts, or not ErrColumn", err)
			}
			var de *DelimiterError
			if got := errors.As(err, &de); got != (c.guess != 0) {
				t.Fatalf("OrDelimiter = %#v: a *DelimiterError %v, want %v", err, got, c.guess != 0)
			}
			if de != nil && (de.Guess != c.guess || de.Err != facts) {
				t.Errorf("OrDelimiter = %+v, want Guess %q and Err the facts", de, c.guess)
			}
		})
	}
}

// TestDelimiterError: Facts is the wrapped error's message alone, Error
// adds the guessed delimiter and the fix, and Unwrap gives the wrapped
// error, so that errors.Is sees through it to ErrNoKeys as to ErrColumn.
func TestDelimiterError(t *testing.T) {
	errNoKeys := errors.New("no keys") // as index.ErrNoKeys, which keyspec does not know
	for _, c := range []struct {
		name   string
		err    error
		guess  byte
		is     error
		facts  string
		errStr string
	}{
		{"Column", fmt.Errorf("%w \"b\": the header has 1 column: \"a;b\"", ErrColumn), ';', ErrColumn,
			`no such column "b": the header has 1 column: "a;b"`,
			`no such column "b": the header has 1 column: "a;b"; that column holds ";": give the file's delimiter`},
		{"NoKeys", fmt.Errorf("%w: no row has column 1", errNoKeys), '\t', errNoKeys,
			`no keys: no row has column 1`,
			`no keys: no row has column 1; that column holds "\t": give the file's delimiter`},
		{"Pipe", ErrColumn, '|', ErrColumn, `no such column`, `no such column; that column holds "|": give the file's delimiter`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &DelimiterError{Err: c.err, Guess: c.guess}
			if got := e.Facts(); got != c.facts {
				t.Errorf("Facts() = %q, want %q", got, c.facts)
			}
			if got := e.Error(); got != c.errStr {
				t.Errorf("Error() = %q, want %q", got, c.errStr)
			}
			if e.Unwrap() != c.err {
				t.Errorf("Unwrap() = %v, want %v", e.Unwrap(), c.err)
			}
			var err error = e
			if !errors.Is(err, c.is) || !errors.Is(fmt.Errorf("building: %w", err), c.is) {
				t.Errorf("%v is not %v", err, c.is)
			}
			var de *DelimiterError
			if !errors.As(fmt.Errorf("building: %w", err), &de) || de != e {
				t.Errorf("errors.As through a wrap: %v", de)
			}
		})
	}
}
