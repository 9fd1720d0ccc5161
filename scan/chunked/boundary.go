package chunked

import (
	"bytes"
	"iter"

	"github.com/csvidx/csvidx/scan"
)

// Where a chunk starts is guessed from the bytes from its boundary b on:
// the first record at or after b starts where the one holding byte b-1
// ends (a blank line counting as a record here), and b-1 is either outside
// quotes or inside a quoted field. Read the first way, that record ends at
// the first newline at or after b-1 that no quoted field opened after b-1
// holds; read the second way, past the quote that closes b-1's field, and
// then the same. When the two readings differ, the one whose next records
// have the file's usual number of fields wins, the first on a tie: a newline
// inside a multi-line field is followed by the field's next line, which
// seldom looks like a whole record. Each reading reads at most guessWindow
// bytes, and the records sampled after it (guessSample, blank lines
// skipped) no further; a first reading that does not end within the window
// falls back to the first newline, and a second one is not taken.
const (
	guessSample = 8        // records read after each reading of a boundary
	guessWindow = 64 << 10 // bytes after the boundary the guess may read
)

// guessStart guesses where the first record at or after b starts (see
// above); cols is the usual number of fields of a record, or 0 when not
// known. With no newline before limit, it guesses that no record starts in
// the chunk and returns min(len(data), limit): a line of gigabytes must not
// cost every chunk it spans a search to its end (that search is the only
// one that may read past the window, to the chunk's end).
func guessStart(data []byte, b, limit int, delim byte, cols int) int {
	end := min(len(data), limit)
	i := bytes.IndexByte(data[b-1:end], '\n')
	if i < 0 {
		return end
	}
	return guessFrom(data[:min(len(data), b+guessWindow)], b, end, b+i, delim, cols)
}

// guessFrom is guessStart once the first newline at or after b-1 is known
// to end before end: first is just past it. window is the data up to
// guessWindow bytes past b, or to the data's end.
func guessFrom(window []byte, b, end, first int, delim byte, cols int) int {
	outside, ok := scan.EndOutsideQuotes(window, b-1, delim)
	switch {
	case !ok:
		outside = first // the first newline at or after b-1 ends a record
	case outside > end:
		return end // the record holding b-1 runs past the chunk
	}
	if cols <= 0 {
		return outside
	}
	inside, ok := scan.EndInsideQuotes(window, b-1, delim)
	if !ok || inside == outside || inside > end {
		return outside
	}
	if sampleFits(window, inside, delim, cols) > sampleFits(window, outside, delim, cols) {
		return inside
	}
	return outside
}

// sampleFits returns how many of the records sampled from i on (see
// sample) have cols fields.
func sampleFits(data []byte, i int, delim byte, cols int) int {
	fit := 0
	for n := range sample(data, i, delim) {
		if n == cols {
			fit++
		}
	}
	return fit
}

// usualFields returns the number of fields most of the records sampled
// from start have (the fewest among equals; a byte order mark skipped), or
// 0 when none ends within guessWindow bytes.
func usualFields(data []byte, start int, delim byte) int {
	if start == 0 && bytes.HasPrefix(data, scan.BOM) {
		start = len(scan.BOM)
	}
	counts := map[int]int{}
	best := 0
	for n := range sample(data[:min(len(data), start+guessWindow)], start, delim) {
		counts[n]++
		if c := counts[n]; c > counts[best] || c == counts[best] && n < best {
			best = n
		}
	}
	return best
}

// sample yields the numbers of fields of the guessSample records from i on,
// blank lines skipped, stopping at the first that does not end within data.
func sample(data []byte, i int, delim byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		for range guessSample {
			n, end, terminated := scan.CountFields(data, i, delim)
			if !terminated || !yield(n) {
				return
			}
			i = end
		}
	}
}
