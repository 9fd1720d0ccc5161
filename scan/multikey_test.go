package scan

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzMultiKey holds a scanner of several keys to the reference parser:
// the same records and, for each key, what the reference's fields at its
// columns make (a value, or a composite encoding) or none when a record
// lacks one, whole (KeyOf) and streamed (WriteKeyOf), with long fields at
// the usual size and at every size.
func FuzzMultiKey(f *testing.F) {
	for _, tc := range scanCases {
		input, _ := splitMarks(tc.Input)
		f.Add([]byte(input), tc.Delim, uint8(tc.Key), uint8(tc.Key+1), uint8(3))
	}
	f.Add([]byte("a,\"b\x00\"\"c\",\"d\"e\"f\r\n\r\n\"g\nh\"\r,\x00\x00"), byte(','), uint8(2), uint8(0), uint8(0x41))
	f.Add([]byte("1,\"x,y\",z\n2,\"\",\n3\n"), byte(','), uint8(1), uint8(2), uint8(0x92))
	f.Fuzz(func(t *testing.T, data []byte, delim byte, a, b, c uint8) {
		if delim == 0 {
			delim = ','
		}
		if CheckDelimiter(delim) != nil {
			return
		}
		keys := fuzzKeys(a, b, c)
		checkMultiKey(t, data, delim, keys)
		defer func(n int) { longField = n }(longField)
		longField = 0
		checkMultiKey(t, data, delim, keys)
	})
}

// fuzzKeys makes 2 or 3 keys of columns 0 to 5 from a, b and c: each a
// column, or two or three of them.
func fuzzKeys(a, b, c uint8) [][]int {
	var keys [][]int
	for i, v := range []uint8{a, b, c} {
		if i == 2 && v&1 == 0 {
			break
		}
		k := []int{int(v % 6)}
		for n := int(v>>3) % 3; n > 0; n-- {
			next := (k[len(k)-1] + 1 + int(v>>5)) % 6
			for contains(k, next) {
				next = (next + 1) % 6
			}
			k = append(k, next)
		}
		keys = append(keys, k)
	}
	return keys
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func checkMultiKey(t *testing.T, data []byte, delim byte, keys [][]int) {
	t.Helper()
	want, _ := refParse(data, delim)
	var s Scanner
	if err := s.InitKeys(data, delim, keys); err != nil {
		t.Fatal(err)
	}
	s.Reset(0)
	n := 0
	for s.Next() {
		if n >= len(want) {
			t.Fatalf("scanner found a record at %d after the reference's %d records", s.Start(), len(want))
		}
		w := want[n]
		if s.Start() != w.start || s.End() != w.end || s.Terminated() != w.terminated {
			t.Fatalf("record %d: scanner [%d,%d) term=%v; reference [%d,%d) term=%v\ninput %q",
				n, s.Start(), s.End(), s.Terminated(), w.start, w.end, w.terminated, data)
		}
		// Streamed first: KeyOf builds long fields, after which they are
		// no longer long.
		for j, cols := range keys {
			wantKey, wantOK := refKey(w.fields, cols)
			var streamed bytes.Buffer
			if err := s.WriteKeyOf(j, &streamed); err != nil || !bytes.Equal(streamed.Bytes(), wantKey) {
				t.Fatalf("record %d, key %d %v: WriteKeyOf wrote %q (err %v), reference key %q\ninput %q", n, j, cols, streamed.Bytes(), err, wantKey, data)
			}
			if s.LongKeyOf(j) && !wantOK {
				t.Fatalf("record %d, key %d %v: long, but the record lacks it\ninput %q", n, j, cols, data)
			}
		}
		for j, cols := range keys {
			wantKey, wantOK := refKey(w.fields, cols)
			if k, ok := s.KeyOf(j); ok != wantOK || !bytes.Equal(k, wantKey) {
				t.Fatalf("record %d, key %d %v: KeyOf %q/%v, reference %q/%v\ninput %q", n, j, cols, k, ok, wantKey, wantOK, data)
			}
		}
		n++
	}
	if n != len(want) {
		t.Fatalf("scanner found %d records, reference %d\ninput %q", n, len(want), data)
	}
}

// refKey returns the key of cols in a reference record's fields: the field
// for one column, the encoding for several, and false if one is missing.
func refKey(fields []string, cols []int) ([]byte, bool) {
	var parts [][]byte
	for _, c := range cols {
		if c >= len(fields) {
			return nil, false
		}
		parts = append(parts, []byte(fields[c]))
	}
	if len(parts) == 1 {
		return parts[0], true
	}
	return AppendComposite(nil, parts), true
}

func TestInitKeysRejects(t *testing.T) {
	var s Scanner
	many := make([][]int, MaxKeys+1)
	for i := range many {
		many[i] = []int{i}
	}
	for _, keys := range [][][]int{nil, {{1}}, {{1}, {}}, {{1}, {2, 2}}, {{0}, {-1}}, {{0}, make([]int, MaxKeyColumns+1)}, many} {
		if err := s.InitKeys([]byte("a,b\n"), ',', keys); !errors.Is(err, ErrKeys) {
			t.Errorf("keys %v: %v, want ErrKeys", keys, err)
		}
	}
}
