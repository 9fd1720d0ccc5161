package scan

import (
	"errors"
	"testing"
)

func TestParseDelimiter(t *testing.T) {
	for in, want := range map[string]byte{",": ',', ";": ';', `\t`: '\t', "tab": '\t', "\t": '\t', "|": '|'} {
		if got, err := ParseDelimiter(in); err != nil || got != want {
			t.Errorf("ParseDelimiter(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ab", `\n`, "tabs", "é"} {
		if got, err := ParseDelimiter(in); !errors.Is(err, ErrDelimiterText) {
			t.Errorf("ParseDelimiter(%q) = %q, %v; want ErrDelimiterText", in, got, err)
		}
	}
}
