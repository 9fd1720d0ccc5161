package join

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/scan"
)

// coalesceRef is the reference join that prints the key once, over decoded
// fields: LEFT's fields then RIGHT's without its key columns (rkeys); a
// RIGHT row no LEFT row matched has its key in LEFT's key columns (lkeys,
// in the key's order) and LEFT's other fields empty. The first rows are
// the headers.
func coalesceRef(mode Mode, left, right [][]string, lkeys, rkeys []int) [][]string {
	keyOf := func(row []string, cols []int) (string, bool) {
		if len(row) <= slices.Max(cols) {
			return "", false
		}
		var parts []string
		for _, c := range cols {
			parts = append(parts, row[c])
		}
		return strings.Join(parts, "\x00"), strings.Join(parts, "") != "" // all empty: no match
	}
	drop := func(row []string) []string {
		var out []string
		for c, f := range row {
			if !slices.Contains(rkeys, c) {
				out = append(out, f)
			}
		}
		return out
	}
	byKey := map[string][]int{}
	for i, r := range right[1:] {
		if k, ok := keyOf(r, rkeys); ok {
			byKey[k] = append(byKey[k], i+1)
		}
	}
	nLeft, nRight := len(left[0]), len(drop(right[0]))
	out := [][]string{append(slices.Clone(left[0]), drop(right[0])...)}
	matched := map[int]bool{}
	for _, l := range left[1:] {
		var rows []int
		if k, ok := keyOf(l, lkeys); ok {
			rows = byKey[k]
		}
		for _, i := range rows {
			matched[i] = true
			out = append(out, append(slices.Clone(l), drop(right[i])...))
		}
		if len(rows) == 0 && (mode == Left || mode == Full) {
			out = append(out, append(slices.Clone(l), make([]string, nRight)...))
		}
	}
	if mode == Right || mode == Full {
		for i, r := range right[1:] {
			if matched[i+1] {
				continue
			}
			l := make([]string, nLeft)
			for p, c := range rkeys {
				if c < len(r) {
					l[lkeys[p]] = r[c]
				}
			}
			out = append(out, append(l, drop(r)...))
		}
	}
	return out
}

// records decodes data, records of delimiter delim, as the scanner reads
// them.
func records(data []byte, delim byte) [][]string {
	var out [][]string
	for i := 0; i < len(data); {
		fields, end, _ := scan.Fields(data, i, delim)
		row := make([]string, len(fields))
		for j, f := range fields {
			row[j] = string(f)
		}
		out = append(out, row)
		i = end
	}
	return out
}

// TestJoinCoalesce: printing the key once (Options.Coalesce), in every
// mode that prints both sides, the join's output decodes to the
// reference's: keys of one column at RIGHT's start, middle and end, and
// composite keys in and out of RIGHT's column order and apart; LEFT's key
// columns elsewhere than RIGHT's; fields with quotes, delimiters, newlines
// and carriage returns; CRLF rows, rows too short for the key, an
// unterminated last row whose quote never closes; RIGHT in LEFT's
// delimiter (its rows cut as written) and in another (re-encoded).
func TestJoinCoalesce(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 43))
	values := []string{"", "1", "2", "x,y", "a;b", `q"`, "c\r", "\r", "n\nl", " sp ", "7"}
	keys := []string{"", "1", "2", "x,y", `q"`, "c\r"}
	rightNames := []string{"a", "k1", "b", "k2", "c"}
	for n, c := range []struct {
		rkey  string // RIGHT's key, by its names
		lkey  string // LEFT's, by "l" names: l0 to l3
		rkeys []int
		lkeys []int
	}{
		{"a", "l2", []int{0}, []int{2}},
		{"k1", "l0", []int{1}, []int{0}},
		{"c", "l3", []int{4}, []int{3}},
		{"a,k1", "l1,l2", []int{0, 1}, []int{1, 2}},
		{"k1,a", "l2,l0", []int{1, 0}, []int{2, 0}},
		{"k2,k1", "l3,l1", []int{3, 1}, []int{3, 1}},
		{"a,k1", "l3,l0", []int{0, 1}, []int{3, 0}},
	} {
		for _, rdelim := range []byte{',', ';'} {
			for _, ldelim := range []byte{',', '\t'} {
				name := fmt.Sprintf("%d: RIGHT by %s, LEFT by %s, delimiters %q %q", n, c.rkey, c.lkey, rdelim, ldelim)
				field := func(col int, keyCols []int) string {
					if slices.Contains(keyCols, col) {
						return keys[r.IntN(len(keys))]
					}
					return values[r.IntN(len(values))]
				}
				var rb []byte
				rb = scan.AppendRecord(rb, toBytes(rightNames), rdelim)
				rb = append(rb, '\n')
				for i := range 300 {
					var row []string
					for col := range rightNames {
						row = append(row, field(col, c.rkeys))
					}
					if i%17 == 5 {
						row = row[:1+r.IntN(slices.Max(c.rkeys)+1)] // maybe too short for the key
						if len(row) == 1 && row[0] == "" {
							row[0] = "short"
						}
					}
					rb = appendRaw(rb, row, rdelim, r)
					rb = append(rb, []string{"\n", "\r\n"}[r.IntN(2)]...)
				}
				if n%2 == 0 { // an unterminated last row whose quote never closes
					rb = scan.AppendRecord(rb, toBytes([]string{"1", "1", "1", "1"}), rdelim)
					rb = append(append(rb, rdelim), `"op`+"\n"+`en`...)
				}
				var lb []byte
				lb = scan.AppendRecord(lb, toBytes([]string{"l0", "l1", "l2", "l3"}), ldelim)
				lb = append(lb, '\n')
				for range 200 {
					var row []string
					for col := range 4 {
						row = append(row, field(col, c.lkeys))
					}
					lb = append(scan.AppendRecord(lb, toBytes(row), ldelim), '\n')
				}
				rp := writeCSV(t, string(rb))
				build(t, rp, &index.BuildOptions{Key: c.rkey, Delimiter: rdelim})
				for _, mode := range []Mode{Inner, Left, Right, Full} {
					j, err := New(bytes.NewReader(lb), rp, &Options{Mode: mode, Key: c.lkey, RightKey: c.rkey, Delimiter: ldelim, Coalesce: true})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					var out bytes.Buffer
					rows, err := j.Run(context.Background(), &out)
					j.Close()
					if err != nil {
						t.Fatalf("%s, mode %d: %v", name, mode, err)
					}
					want := coalesceRef(mode, records(lb, ldelim), records(rb, rdelim), c.lkeys, c.rkeys)
					got := records(out.Bytes(), ldelim)
					for i := range min(len(got), len(want)) {
						if !slices.Equal(got[i], want[i]) {
							t.Fatalf("%s, mode %d: row %d: %q, want %q", name, mode, i, got[i], want[i])
						}
					}
					if len(got) != len(want) || rows != int64(len(want)-1) {
						t.Fatalf("%s, mode %d: %d rows (%d said), want %d", name, mode, len(got)-1, rows, len(want)-1)
					}
				}
			}
		}
	}
}

// appendRaw appends row as one record, without its terminator, as
// scan.AppendRecord does but that a field whose only special byte is a
// carriage return is written unquoted half of the time (valid: a lone CR is
// data), so that a field as written may end with one.
func appendRaw(dst []byte, row []string, delim byte, r *rand.Rand) []byte {
	for i, f := range row {
		if i > 0 {
			dst = append(dst, delim)
		}
		switch {
		case strings.ContainsAny(f, "\"\n"+string(delim)) || f == "":
			if len(row) == 1 && f == "" {
				dst = append(dst, `""`...)
			} else {
				dst = scan.AppendRecord(dst, toBytes([]string{f}), delim)
			}
		case strings.Contains(f, "\r") && r.IntN(2) == 0:
			dst = append(dst, f...)
		default:
			dst = scan.AppendRecord(dst, toBytes([]string{f}), delim)
		}
	}
	return dst
}

func toBytes(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i, v := range s {
		out[i] = []byte(v)
	}
	return out
}
