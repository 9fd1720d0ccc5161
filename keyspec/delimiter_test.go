package keyspec

import "testing"

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
