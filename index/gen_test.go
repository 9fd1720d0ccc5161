package index

import (
	"math/rand/v2"
	"strings"
)

// A generated CSV whose every row's key and bytes are known by
// construction: the tests' oracle for lookups.
type genRow struct {
	key    string
	hasKey bool
	text   string // the row's bytes as they appear in the CSV
	off    int    // where the row starts in the CSV
}

type genCSV struct {
	data   string
	header string // the header record, or "" with no header
	rows   []genRow
	keyCol int
	delim  byte
}

// nastyKeys are keys that break naive CSV handling.
var nastyKeys = []string{
	"a,b", `x"y`, "new\nline", "crlf\r\ninside", "ключ", "日本", "", "007", "7", " 7", "7 ",
	`"quoted"`, "tab\there", "semi;colon", "u1", "u2", "u3", "\r", "trailing\r",
}

// makeCSV writes n rows with the key in column keyCol, using every way the
// dialect allows to write a field: plain, quoted, with "" escapes, with
// text after the closing quote; \n or \r\n terminators, blank lines, short
// rows, and (when unterminated) a last row without a terminator.
func makeCSV(r *rand.Rand, n, keyCol int, delim byte, header, unterminated bool) genCSV {
	g := genCSV{keyCol: keyCol, delim: delim}
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString("\xEF\xBB\xBF")
	}
	ncols := keyCol + 1 + r.IntN(3)
	if header {
		var h strings.Builder
		for c := 0; c < ncols; c++ {
			if c > 0 {
				h.WriteByte(delim)
			}
			h.WriteString(encodeField(r, "col"+string(rune('a'+c)), delim))
		}
		h.WriteString("\n")
		g.header = h.String()
		b.WriteString(g.header)
	}
	for i := 0; i < n; i++ {
		if r.IntN(10) == 0 {
			b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
		}
		cols := ncols
		if r.IntN(12) == 0 {
			cols = 1 + r.IntN(keyCol+1) // short: no key column
		}
		key := nastyKeys[r.IntN(len(nastyKeys))]
		var row strings.Builder
		for c := 0; c < cols; c++ {
			if c > 0 {
				row.WriteByte(delim)
			}
			v := key
			if c != keyCol {
				v = []string{"x", "", "1,2", "say \"hi\"", "two\nlines", "y"}[r.IntN(6)]
			}
			row.WriteString(encodeField(r, v, delim))
		}
		text := row.String()
		if text == "" || text == "\r" {
			text = `""` // an empty row would be a blank line, not a record
		}
		last := i == n-1
		if !(last && unterminated) {
			text += []string{"\n", "\r\n"}[r.IntN(2)]
		}
		g.rows = append(g.rows, genRow{key: key, hasKey: cols > keyCol, text: text, off: b.Len()})
		b.WriteString(text)
	}
	g.data = b.String()
	return g
}

// encodeField writes v as a field, choosing at random among the encodings
// that read back as v.
func encodeField(r *rand.Rand, v string, delim byte) string {
	plainOK := !strings.ContainsAny(v, string(delim)+"\n\r") && !strings.HasPrefix(v, `"`)
	if plainOK && r.IntN(2) == 0 {
		return v
	}
	q := `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	// Text after the closing quote is appended as is, so "ab"cd is abcd.
	if i := strings.LastIndexAny(v, "\"\n\r"+string(delim)); r.IntN(4) == 0 && i+1 < len(v) {
		head, tail := v[:i+1], v[i+1:]
		if !strings.ContainsAny(tail, "\"\n\r"+string(delim)) {
			q = `"` + strings.ReplaceAll(head, `"`, `""`) + `"` + tail
		}
	}
	return q
}

// want returns the rows a lookup of key must print.
func (g *genCSV) want(key string) string {
	var b strings.Builder
	for _, row := range g.rows {
		if row.hasKey && row.key == key {
			b.WriteString(row.text)
			if !strings.HasSuffix(row.text, "\n") {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// count returns how many rows have key.
func (g *genCSV) count(key string) int64 {
	n := int64(0)
	for _, row := range g.rows {
		if row.hasKey && row.key == key {
			n++
		}
	}
	return n
}
