package scan

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzComposite holds the scanner of a composite key to the reference
// parser: the same records, and as key the encoding of the reference's
// fields at the key's columns, or none when a record lacks one, whole
// (Key), streamed (WriteKey) and read alone (At), with long fields at the
// usual size and at every size.
func FuzzComposite(f *testing.F) {
	for _, tc := range scanCases {
		input, _ := splitMarks(tc.Input)
		f.Add([]byte(input), tc.Delim, uint8(tc.Key), uint8(tc.Key+1))
	}
	f.Add([]byte("a,\"b\x00\"\"c\",\"d\"e\"f\r\n\r\n\"g\nh\"\r,\x00\x00"), byte(','), uint8(2), uint8(0))
	f.Add([]byte("1,\"x,y\",z\n2,\"\",\n3\n"), byte(','), uint8(1), uint8(2))
	// Quotes after the key fields, and in them (quotedComposite).
	f.Add([]byte("1,2,\"x,\ny\"\n3,4,\"\"\n5,\"6\",7\n8,9\"\n"), byte(','), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, delim byte, a, b uint8) {
		if delim == 0 {
			delim = ','
		}
		if CheckDelimiter(delim) != nil {
			return
		}
		cols := []int{int(a % 6), int(b % 6)}
		if cols[0] == cols[1] {
			cols[1] = (cols[0] + 1 + int(b>>4)%5) % 6
		}
		if a&0x80 != 0 { // three columns
			c := 0
			for c == cols[0] || c == cols[1] {
				c++
			}
			cols = append(cols, c)
		}
		checkComposite(t, data, delim, cols)
		defer func(n int) { longField = n }(longField)
		longField = 0
		checkComposite(t, data, delim, cols)
	})
}

func checkComposite(t *testing.T, data []byte, delim byte, cols []int) {
	t.Helper()
	want, _ := refParse(data, delim)
	var s Scanner
	if err := s.InitComposite(data, delim, cols); err != nil {
		t.Fatal(err)
	}
	s.Reset(0)
	n := 0
	for s.Next() {
		if n >= len(want) {
			t.Fatalf("scanner found a record at %d after the reference's %d records", s.Start(), len(want))
		}
		w := want[n]
		var wantKey []byte
		wantOK := true
		var fields [][]byte
		for _, c := range cols {
			if c >= len(w.fields) {
				wantOK = false
				break
			}
			fields = append(fields, []byte(w.fields[c]))
		}
		if wantOK {
			wantKey = AppendComposite(nil, fields)
		}
		var streamed bytes.Buffer
		if err := s.WriteKey(&streamed); err != nil || !bytes.Equal(streamed.Bytes(), wantKey) {
			t.Fatalf("record %d, columns %v: WriteKey wrote %q (err %v), reference key %q\ninput %q", n, cols, streamed.Bytes(), err, wantKey, data)
		}
		k, ok := s.Key()
		if s.Start() != w.start || s.End() != w.end || s.Terminated() != w.terminated || ok != wantOK || !bytes.Equal(k, wantKey) {
			t.Fatalf("record %d, columns %v: scanner [%d,%d) term=%v key=%q/%v; reference [%d,%d) term=%v key=%q/%v\ninput %q",
				n, cols, s.Start(), s.End(), s.Terminated(), k, ok, w.start, w.end, w.terminated, wantKey, wantOK, data)
		}
		var one Scanner
		if err := one.InitComposite(data, delim, cols); err != nil {
			t.Fatal(err)
		}
		if !one.At(w.start) {
			t.Fatalf("At(%d) found no record\ninput %q", w.start, data)
		}
		if k1, ok1 := one.Key(); one.End() != w.end || ok1 != wantOK || !bytes.Equal(k1, wantKey) {
			t.Fatalf("At(%d): [%d,%d) key=%q/%v; reference ends at %d, key=%q/%v\ninput %q", w.start, one.Start(), one.End(), k1, ok1, w.end, wantKey, wantOK, data)
		}
		n++
	}
	if n != len(want) {
		t.Fatalf("scanner found %d records, reference %d\ninput %q", n, len(want), data)
	}
}

// TestCompositeEncoding checks that the encoding tells apart what differs
// only in where the fields split, or in 00 bytes.
func TestCompositeEncoding(t *testing.T) {
	keys := [][]string{
		{"a", "b"}, {"a\x00", "b"}, {"a", "\x00b"}, {"a\x00\x00", ""}, {"", "\x00\x00a"},
		{"a\x00", "\x00b"}, {"", ""}, {"\x00", ""}, {"", "\x00"}, {"a\xff", "b"}, {"a", "\xffb"},
	}
	seen := map[string][]string{}
	for _, k := range keys {
		fields := [][]byte{[]byte(k[0]), []byte(k[1])}
		enc := string(AppendComposite(nil, fields))
		if other, ok := seen[enc]; ok {
			t.Fatalf("%q and %q encode alike: %q", other, k, enc)
		}
		seen[enc] = k
	}
}

func TestCompositeValue(t *testing.T) {
	for _, c := range []struct {
		value, delim string
		n            int
		want         []string // the fields, or nil for an error
		err          string
	}{
		{value: "42,shipped", delim: ",", n: 2, want: []string{"42", "shipped"}},
		{value: `42,"a,b"`, delim: ",", n: 2, want: []string{"42", "a,b"}},
		{value: "42\tx,y", delim: "\t", n: 2, want: []string{"42", "x,y"}},
		{value: "42,shipped\n", delim: ",", n: 2, want: []string{"42", "shipped"}},
		{value: `"a""b",`, delim: ",", n: 2, want: []string{`a"b`, ""}},
		{value: "42", delim: ",", n: 2, err: "has 1 field; the index's key has 2 columns"},
		{value: "1,2,3", delim: ",", n: 2, err: "has 3 fields"},
		{value: "1,2\n3,4", delim: ",", n: 2, err: "more than one record"},
	} {
		got, err := CompositeValue([]byte(c.value), c.delim[0], c.n)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one with %q", c.value, err, c.err)
			}
			continue
		}
		var fields [][]byte
		for _, f := range c.want {
			fields = append(fields, []byte(f))
		}
		if want := AppendComposite(nil, fields); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%q: %q, %v; want %q", c.value, got, err, want)
		}
	}
}

func TestInitCompositeRejects(t *testing.T) {
	var s Scanner
	for _, cols := range [][]int{nil, {1}, {1, 1}, {0, -1}, make([]int, MaxKeyColumns+1)} {
		if err := s.InitComposite([]byte("a,b\n"), ',', cols); !errors.Is(err, ErrKeyColumns) {
			t.Errorf("columns %v: %v, want ErrKeyColumns", cols, err)
		}
	}
}
