package keyspec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/scan"
)

// header returns fields as a header's fields, nil for none.
func header(fields ...string) [][]byte {
	var out [][]byte
	for _, f := range fields {
		out = append(out, []byte(f))
	}
	return out
}

// numbers returns the spec of n columns named by their numbers, 0 to n-1.
func numbers(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return strings.Join(s, ",")
}

// upTo returns the columns 0 to n-1.
func upTo(n int) []int {
	cols := make([]int, n)
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// TestFields: a key spec is one CSV record of names, quoted where a name
// holds a comma, a quote or a newline; more than one line, or more than
// scan.MaxKeyColumns names, is an error that says why.
func TestFields(t *testing.T) {
	limit := fmt.Sprintf("a key has at most %d columns", scan.MaxKeyColumns)
	for _, c := range []struct {
		name    string
		key     string
		want    []string
		err     error
		errText []string // each in the message
	}{
		{name: "One", key: "user_id", want: []string{"user_id"}},
		{name: "Number", key: "3", want: []string{"3"}},
		{name: "Several", key: "user_id,status,3", want: []string{"user_id", "status", "3"}},
		{name: "Spaces", key: " a , b", want: []string{" a ", " b"}},
		{name: "QuotedComma", key: `"a,b",c`, want: []string{"a,b", "c"}},
		{name: "QuotedQuote", key: `"say ""hi""",x`, want: []string{`say "hi"`, "x"}},
		{name: "QuotedNewline", key: "\"two\nlines\",x", want: []string{"two\nlines", "x"}},
		{name: "LiteralQuoteInside", key: `a"b,c`, want: []string{`a"b`, "c"}},
		{name: "EmptyField", key: "a,,b", want: []string{"a", "", "b"}},
		{name: "Semicolons", key: "a;b", want: []string{"a;b"}},
		{name: "MaxColumns", key: numbers(scan.MaxKeyColumns), want: strings.Split(numbers(scan.MaxKeyColumns), ",")},
		{name: "TwoLines", key: "a\nb", err: ErrColumn, errText: []string{`"a\nb"`, "one line"}},
		{name: "TwoLinesCRLF", key: "a,b\r\nc", err: ErrColumn, errText: []string{`"a,b\r\nc"`, "one line"}},
		{name: "SecondLineEmpty", key: "a\n\n", err: ErrColumn, errText: []string{"one line"}},
		{name: "TooMany", key: numbers(scan.MaxKeyColumns + 1), err: ErrKeyColumns,
			errText: []string{limit, fmt.Sprintf("the key has %d columns: ", scan.MaxKeyColumns+1)}},
		{name: "TooManyNamed", key: strings.Repeat("x,", 100) + "x", err: ErrKeyColumns, errText: []string{limit, "101 columns"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Fields(c.key)
			if c.err != nil {
				if !errors.Is(err, c.err) || got != nil {
					t.Fatalf("Fields(%q) = %q, %v; want %v", c.key, got, err, c.err)
				}
				for _, s := range c.errText {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("Fields(%q): %q does not say %q", c.key, err, s)
					}
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("Fields(%q) = %q, %v; want %q", c.key, got, err, c.want)
			}
		})
	}
}

// TestColumn: a key column is the header field of that name, else a
// 0-based number up to MaxColumn; a name two fields have, a negative or too
// large number, and a name with no field are errors that say what to give.
func TestColumn(t *testing.T) {
	abc := header("a", "b", "c")
	for _, c := range []struct {
		name   string
		key    string
		fields [][]byte
		found  bool
		want   int
		err    error
		errMsg string // the whole message, if not ""
	}{
		{name: "Name", key: "b", fields: abc, found: true, want: 1},
		{name: "FirstName", key: "a", fields: abc, found: true, want: 0},
		{name: "QuotedName", key: `x"y,z`, fields: header("id", `x"y,z`), found: true, want: 1},
		{name: "EmptyName", key: "", fields: header("id", ""), found: true, want: 1},
		{name: "Number", key: "2", fields: abc, found: true, want: 2},
		{name: "NumberPastHeader", key: "7", fields: abc, found: true, want: 7},
		{name: "NumberNoHeader", key: "3", want: 3},
		{name: "FieldNamedLikeANumberWins", key: "3", fields: header("3", "x", "y", "z"), found: true, want: 0},
		{name: "OtherNumberStillANumber", key: "0", fields: header("3", "x"), found: true, want: 0},
		{name: "NumberNamesAnotherField", key: "1", fields: header("x", "y", "1"), found: true, want: 2},
		{name: "MaxColumn", key: strconv.Itoa(MaxColumn), want: MaxColumn},
		{name: "PastMaxColumn", key: strconv.Itoa(MaxColumn + 1), err: ErrColumn},
		{name: "PastMaxColumnWithHeader", key: "2147483648", fields: abc, found: true, err: ErrColumn},
		{name: "Huge", key: "99999999999999999999999", err: ErrColumn},
		{name: "Negative", key: "-1", err: ErrColumn,
			errMsg: `no such column "-1": there is no header to look it up in; give a 0-based column number`},
		{name: "NegativeWithHeader", key: "-1", fields: abc, found: true, err: ErrColumn},
		{name: "Ambiguous", key: "user", fields: header("id", "user", "user"), found: true, err: ErrAmbiguousColumn,
			errMsg: `ambiguous key column "user": the header has it twice, as columns 1 and 2; give the 0-based column number instead`},
		{name: "AmbiguousApart", key: "x", fields: header("x", "a", "b", "x"), found: true, err: ErrAmbiguousColumn, errMsg: "as columns 0 and 3"},
		{name: "AmbiguousNumberName", key: "1", fields: header("1", "1"), found: true, err: ErrAmbiguousColumn, errMsg: "as columns 0 and 1"},
		{name: "MissingWithHeader", key: "user", fields: header("id", "name"), found: true, err: ErrColumn,
			errMsg: `no such column "user": the header has 2 columns: "id", "name"; give a name or a 0-based number`},
		{name: "MissingNoHeader", key: "user", err: ErrColumn,
			errMsg: `no such column "user": there is no header to look it up in; give a 0-based column number`},
		{name: "CaseMatters", key: "User", fields: header("user"), found: true, err: ErrColumn,
			errMsg: `no such column "User": the header has 1 column: "user"; give a name or a 0-based number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Column(c.key, c.fields, c.found, ',')
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("Column(%q) = %d, %v; want %v", c.key, got, err, c.err)
				}
				if c.errMsg != "" && !strings.Contains(err.Error(), c.errMsg) {
					t.Errorf("Column(%q) = %q, want it to say %q", c.key, err, c.errMsg)
				}
				if errors.Is(err, ErrColumn) && errors.Is(err, ErrAmbiguousColumn) {
					t.Errorf("Column(%q) = %v: both ErrColumn and ErrAmbiguousColumn", c.key, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Column(%q) = %d, %v; want %d", c.key, got, err, c.want)
			}
		})
	}
}

// TestColumnDelimiterError: a key missing from a header of one field that
// holds another delimiter is a *DelimiterError guessing it, which still
// is ErrColumn and names the header; a header that holds none is not.
func TestColumnDelimiterError(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields [][]byte
		delim  byte
		guess  byte // 0: not a *DelimiterError
		msg    string
	}{
		{name: "Semicolon", fields: header("id;user"), delim: ',', guess: ';',
			msg: `no such column "user": the header has 1 column: "id;user"; that column holds ";": give the file's delimiter`},
		{name: "Tab", fields: header("id\tuser"), delim: ',', guess: '\t',
			msg: `no such column "user": the header has 1 column: "id\tuser"; that column holds "\t": give the file's delimiter`},
		{name: "CommaReadWithSemicolons", fields: header("id,user"), delim: ';', guess: ',',
			msg: `no such column "user": the header has 1 column: "id,user"; that column holds ",": give the file's delimiter`},
		{name: "OneFieldNoDelimiter", fields: header("id"), delim: ',',
			msg: `no such column "user": the header has 1 column: "id"; give a name or a 0-based number`},
		{name: "TwoFields", fields: header("id;x", "y"), delim: ',',
			msg: `no such column "user": the header has 2 columns: "id;x", "y"; give a name or a 0-based number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Column("user", c.fields, true, c.delim)
			if !errors.Is(err, ErrColumn) || err.Error() != c.msg {
				t.Fatalf("Column = %v\nwant %s (ErrColumn)", err, c.msg)
			}
			var de *DelimiterError
			if got := errors.As(err, &de); got != (c.guess != 0) {
				t.Fatalf("Column = %v: a *DelimiterError %v, want %v", err, got, c.guess != 0)
			}
			if de != nil && de.Guess != c.guess {
				t.Errorf("Column = %v: guess %q, want %q", err, de.Guess, c.guess)
			}
		})
	}
	// Without a header the fields are not looked at for a delimiter.
	_, err := Resolve("user", nil, false, ',')
	var de *DelimiterError
	if !errors.Is(err, ErrColumn) || errors.As(err, &de) {
		t.Errorf("no header: %v, want ErrColumn and no *DelimiterError", err)
	}
}

// TestResolve: a spec's columns in its order, each resolved as Column
// does; a column named twice, by name or number, is an error naming both,
// and the errors of Fields and Column come through.
func TestResolve(t *testing.T) {
	hdr := header("id", "user", "status", "3")
	for _, c := range []struct {
		name   string
		key    string
		fields [][]byte
		want   []int
		err    error  // if not nil, errors.Is
		errMsg string // if not "", in the message; an error is wanted
	}{
		{name: "One", key: "user", fields: hdr, want: []int{1}},
		{name: "Composite", key: "status,id", fields: hdr, want: []int{2, 0}},
		{name: "NamesAndNumbers", key: "user,0,7", fields: hdr, want: []int{1, 0, 7}},
		{name: "NameWinsOverNumber", key: "3,2", fields: hdr, want: []int{3, 2}},
		{name: "NoHeader", key: "4,1", want: []int{4, 1}},
		{name: "Quoted", key: `"a,b","c""d"`, fields: header("x", `c"d`, "a,b"), want: []int{2, 1}},
		{name: "MaxKeyColumns", key: numbers(scan.MaxKeyColumns), want: upTo(scan.MaxKeyColumns)},
		{name: "TwiceByName", key: "user,user", fields: hdr, errMsg: `key "user,user" names column 1 twice (as "user" and "user"); name each column once`},
		{name: "TwiceByNameAndNumber", key: "id,status,0", fields: hdr, errMsg: `key "id,status,0" names column 0 twice (as "id" and "0"); name each column once`},
		{name: "TwiceByNumbers", key: "5,5", errMsg: `names column 5 twice (as "5" and "5")`},
		{name: "TwiceLeadingZero", key: "5,05", errMsg: `names column 5 twice (as "5" and "05")`},
		{name: "Missing", key: "user,nope", fields: hdr, err: ErrColumn, errMsg: `no such column "nope": the header has 4 columns`},
		{name: "Ambiguous", key: "x", fields: header("x", "x"), err: ErrAmbiguousColumn},
		{name: "TwoLines", key: "user\nid", fields: hdr, err: ErrColumn, errMsg: "one line"},
		{name: "TooMany", key: numbers(scan.MaxKeyColumns + 1), err: ErrKeyColumns},
		{name: "Negative", key: "1,-2", err: ErrColumn},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.key, c.fields, c.fields != nil, ',')
			if c.err != nil || c.errMsg != "" {
				if err == nil || (c.err != nil && !errors.Is(err, c.err)) || !strings.Contains(err.Error(), c.errMsg) {
					t.Fatalf("Resolve(%q) = %v, %v; want %v saying %q", c.key, got, err, c.err, c.errMsg)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("Resolve(%q) = %v, %v; want %v", c.key, got, err, c.want)
			}
		})
	}
}

// distinct reports whether no two fields are the same.
func distinct(fields [][]byte) bool {
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[string(f)] {
			return false
		}
		seen[string(f)] = true
	}
	return true
}

// TestName: the name of one column is its header field as it is; of a
// composite key, its fields as one CSV record, quoted where needed, or nil
// when that is longer than max; nil when a column has no header field.
func TestName(t *testing.T) {
	for _, c := range []struct {
		name   string
		cols   []int
		fields [][]byte
		max    int
		want   []byte // nil: no name
	}{
		{name: "One", cols: []int{1}, fields: header("id", "user"), max: 1024, want: []byte("user")},
		{name: "OneNotQuoted", cols: []int{0}, fields: header("a,b"), max: 1024, want: []byte("a,b")},
		{name: "OneEmpty", cols: []int{0}, fields: header(""), max: 1024, want: []byte("")},
		{name: "Composite", cols: []int{2, 0}, fields: header("id", "user", "status"), max: 1024, want: []byte("status,id")},
		{name: "CompositeQuoted", cols: []int{0, 1, 2}, fields: header("a,b", `say "hi"`, "two\nlines"), max: 1024,
			want: []byte(`"a,b","say ""hi""","two` + "\n" + `lines"`)},
		{name: "CompositeSemicolonNotQuoted", cols: []int{0, 1}, fields: header("a;b", "c\td"), max: 1024, want: []byte("a;b,c\td")},
		{name: "CompositeEmpty", cols: []int{1, 0}, fields: header("", "x"), max: 1024, want: []byte("x,")},
		{name: "CompositeEmpties", cols: []int{0, 1}, fields: header("", ""), max: 1024, want: []byte(",")},
		{name: "PastHeader", cols: []int{2}, fields: header("id", "user"), max: 1024},
		{name: "CompositePastHeader", cols: []int{0, 5}, fields: header("id", "user"), max: 1024},
		{name: "NoHeader", cols: []int{0}, max: 1024},
		{name: "AtMax", cols: []int{0, 1}, fields: header("aaaa", "bbbb"), max: 9, want: []byte("aaaa,bbbb")},
		{name: "PastMax", cols: []int{0, 1}, fields: header("aaaa", "bbbb"), max: 8},
		{name: "PastMaxByQuotes", cols: []int{0, 1}, fields: header(`a"`, "b"), max: 6}, // "a""",b is 7
		{name: "OneAtMax", cols: []int{0}, fields: header("aaaa"), max: 4, want: []byte("aaaa")},
		{name: "OnePastMax", cols: []int{0}, fields: header("aaaaa"), max: 4}, // never cut short
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Name(c.cols, c.fields, c.max)
			if (got == nil) != (c.want == nil) || string(got) != string(c.want) {
				t.Fatalf("Name(%v, %q, %d) = %q, want %q", c.cols, c.fields, c.max, got, c.want)
			}
			if len(c.cols) > 1 && got != nil && distinct(c.fields) {
				// A composite name is a key spec that resolves to its
				// columns, when the header names them apart.
				cols, err := Resolve(string(got), c.fields, true, ',')
				if err != nil || !slices.Equal(cols, c.cols) {
					t.Errorf("Resolve(Name) = %v, %v; want %v", cols, err, c.cols)
				}
			}
		})
	}
}

// TestSpec: columns as a key spec of numbers, which resolves back to them
// without a header.
func TestSpec(t *testing.T) {
	for _, c := range []struct {
		cols []int
		want string
	}{
		{[]int{3}, "3"},
		{[]int{1, 4}, "1,4"},
		{[]int{0}, "0"},
		{[]int{10, 2, 0}, "10,2,0"},
		{[]int{MaxColumn, 0}, "2147483647,0"},
	} {
		got := Spec(c.cols)
		if got != c.want {
			t.Errorf("Spec(%v) = %q, want %q", c.cols, got, c.want)
		}
		if cols, err := Resolve(got, nil, false, ','); err != nil || !slices.Equal(cols, c.cols) {
			t.Errorf("Resolve(Spec(%v)) = %v, %v", c.cols, cols, err)
		}
	}
}
