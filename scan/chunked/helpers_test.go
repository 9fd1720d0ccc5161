package chunked

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/sorter"
)

// garbage returns n to n+spread random bytes over the characters that
// matter to a CSV's structure (quotes, delimiters, \n, \r).
func garbage(r *rand.Rand, n, spread int) []byte {
	alphabet := []byte("ab1 ,\"\n\r")
	data := make([]byte, n+r.IntN(spread))
	for j := range data {
		data[j] = alphabet[r.IntN(len(alphabet))]
	}
	return data
}

// newSorter returns a sorter to be a scan's sink, closed when the test ends.
func newSorter(t testing.TB) *sorter.Sorter {
	t.Helper()
	srt := sorter.New(sorter.Options{MemLimit: 1 << 20, Threads: 2, TmpDir: t.TempDir()})
	t.Cleanup(func() { srt.Close() })
	return srt
}

// sorted finishes srt and returns its records, in sorted order.
func sorted(t testing.TB, srt *sorter.Sorter) []sorter.Record {
	t.Helper()
	var all []sorter.Record
	if err := srt.Finish(func(b []sorter.Record) error { all = append(all, b...); return nil }); err != nil {
		t.Fatal(err)
	}
	return all
}

// csvLike returns a CSV of up to rows records that has what windows must
// not get wrong: quoted fields holding newlines, \r\n and "" escapes,
// \r\n and \n terminators, blank lines of both kinds, fields longer than
// small windows, records of unusual lengths, now and then a byte order
// mark (at the start, or as data at a record's start), and a last record
// left unterminated, or in an unclosed quote.
func csvLike(r *rand.Rand, rows int, delim byte) []byte {
	var b bytes.Buffer
	if r.IntN(8) == 0 {
		b.Write(scan.BOM)
	}
	nl := []string{"\n", "\r\n"}
	for range r.IntN(rows + 1) {
		if r.IntN(30) == 0 {
			b.Write(scan.BOM) // data, but where a window may start
		}
		cols := 4
		if r.IntN(5) == 0 {
			cols = 1 + r.IntN(6)
		}
		for c := range cols {
			if c > 0 {
				b.WriteByte(delim)
			}
			b.WriteString(csvField(r, delim))
		}
		b.WriteString(nl[r.IntN(2)])
		for r.IntN(6) == 0 {
			b.WriteString(nl[r.IntN(2)]) // a blank line
		}
	}
	switch r.IntN(6) {
	case 0:
		b.WriteString("last,unterminated")
	case 1:
		b.WriteString("last,\"open\r\nto the end")
	case 2:
		b.WriteString("last\r") // a \r at the very end is data
	}
	return b.Bytes()
}

// csvField returns a field of one of the kinds csvLike mixes.
func csvField(r *rand.Rand, delim byte) string {
	switch r.IntN(10) {
	case 0:
		return ""
	case 1:
		return `"two` + []string{"\n", "\r\n"}[r.IntN(2)] + `lines"`
	case 2:
		return `"say ""hi""` + string(delim) + ` twice"`
	case 3:
		return `"quoted"trail`
	case 4:
		return strings.Repeat("long", 5+r.IntN(60))
	case 5:
		return `"` + strings.Repeat("a\r\nb\n", 3+r.IntN(30)) + `"`
	case 6:
		return `ab"c`
	default:
		return fmt.Sprintf("u%d", r.IntN(50))
	}
}

// blockInput is an Input of a third party's kind: it hands out windows
// aligned on blocks of its own size (as a compressed file's blocks), so
// larger than asked and starting before the offset asked for, and counts
// the windows not yet released.
type blockInput struct {
	data  []byte
	block int
	held  atomic.Int64
}

func (in *blockInput) Size() int { return len(in.data) }

func (in *blockInput) Window(off, n int) (Window, error) {
	lo := off / in.block * in.block
	hi := min(len(in.data), (off+n+in.block-1)/in.block*in.block)
	in.held.Add(1)
	return Window{Data: bytes.Clone(in.data[lo:hi]), Base: lo}, nil
}

func (in *blockInput) Release(Window) { in.held.Add(-1) }
