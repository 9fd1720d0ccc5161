package index

import (
	"context"
	"strings"
	"testing"
)

// TestLongKeys indexes keys of hundreds of KiB that need unescaping ("" or
// text after the closing quote, and an unterminated last field), which the
// build hashes as the scanner streams them instead of building each key in
// memory. The lookup builds the key it compares, and hashes it whole: the
// two hashes must agree, or the rows are not found.
func TestLongKeys(t *testing.T) {
	body := strings.Repeat("ab,\n\"", 50_000) // 250 KB
	escaped := strings.ReplaceAll(body, `"`, `""`)
	plain := strings.Repeat("cd,\r\n", 50_000) // no quote
	keys := []struct{ field, key string }{
		{`"` + escaped + `"`, body},               // escapes
		{`"` + plain + `"tail`, plain + "tail"},   // no escape, text after the quote
		{`"x` + escaped + `"` + "\r", "x" + body}, // escapes, CRLF
	}
	var csv strings.Builder
	csv.WriteString("id,key\n")
	var rows []string
	for i, k := range keys {
		row := string(rune('a'+i)) + "," + k.field + "\n"
		rows = append(rows, row)
		csv.WriteString(row)
		csv.WriteString("n,short\n")
	}
	last := `z,"open` + escaped // unterminated: the quote runs to the end
	csv.WriteString(last)
	p := writeCSV(t, csv.String())
	info := build(t, p, &BuildOptions{Key: "key"})
	if info.Rows != 7 {
		t.Fatalf("Rows = %d, want 7", info.Rows)
	}
	ix, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for i, k := range keys {
		if got := get(t, ix, k.key); got != rows[i] {
			t.Errorf("key %d (%d bytes): got %d bytes of rows, want its row (%d bytes)", i, len(k.key), len(got), len(rows[i]))
		}
	}
	if got := get(t, ix, "open"+body); got != last+"\n" { // get ends an unterminated row
		t.Errorf("unterminated long key: got %d bytes, want the last row (%d bytes)", len(got), len(last))
	}
	if got := get(t, ix, body[:1000]); got != "" {
		t.Errorf("a prefix of a long key found %q", got[:min(len(got), 80)])
	}
	res, err := Verify(context.Background(), p, nil)
	if err != nil || !res.Equal {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
}

// TestLongKeyStreamed checks that the build hashes a long key that needs
// unescaping as the scanner streams it: scanning a record whose key is an
// 8 MiB quoted field with doubled quotes allocates far less than the key.
