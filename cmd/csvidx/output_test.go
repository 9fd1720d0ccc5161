package main

import (
	"strings"
	"testing"
)

func TestKeyArgs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"get a.csv -5", "get -- a.csv -5"},
		{"get a.csv 7 -5 --count", "get --count -- a.csv 7 -5"},
		{"get --keys-file - a.csv -1.5", "get --keys-file - -- a.csv -1.5"},
		{"get --index -3 a.csv -3", "get --index -3 -- a.csv -3"}, // a flag's value stays its value
		{"get a.csv -5 -- -x", "get -- a.csv -5 -x"},
		{"get a.csv 5", "get a.csv 5"},           // nothing negative: unchanged
		{"get a.csv -x", "get a.csv -x"},         // not a number: a flag, refused with advice
		{"get a.csv -1.2.3", "get a.csv -1.2.3"}, // two points: not a number
		{"build a.csv --key -5", "build a.csv --key -5"},
	} {
		if got := strings.Join(keyArgs(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("keyArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	in := "open a\nb\x1b[0m\tc\r\x7f.csv: ok é"
	want := `open a\nb\x1b[0m\tc\r\x7f.csv: ok é`
	if got := oneLine(in); got != want {
		t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
	}
}
