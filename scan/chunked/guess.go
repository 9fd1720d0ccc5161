package chunked

import (
	"bytes"
	"fmt"
)

// guess is guessStart over the scan's input: in place for a CSV in memory;
// else in a window from b-2 (EndOutsideQuotes looks at the byte before
// b-1) to guessWindow bytes past b, which is all that guessStart reads
// but for the search for the first newline, which goes on in further
// windows. That newline ending past the window, no reading of b-1's
// record ends within it: the guess is just past that newline.
func (s *Scan) guess(b, limit, cols int) (int, error) {
	if data, _, ok := s.mem(); ok {
		return guessStart(data, b, limit, s.Delim, cols), nil
	}
	w, err := s.windowAt(b-1, guessWindow+1)
	if err != nil {
		return 0, err
	}
	defer s.release(w)
	end := min(s.size(), limit)
	reach := min(w.End(), b+guessWindow) // what guessStart may read
	window := w.Data[:reach-w.Base]
	rb := b - w.Base
	if i := bytes.IndexByte(window[rb-1:min(len(window), end-w.Base)], '\n'); i >= 0 {
		return w.Base + guessFrom(window, rb, end-w.Base, rb+i, s.Delim, cols), nil
	}
	if reach >= end {
		return end, nil
	}
	nl, err := s.indexNewline(reach, end)
	if err != nil || nl < 0 {
		return end, err
	}
	return nl + 1, nil
}

// indexNewline returns the offset of the first newline in [from, end) of a
// windowed input, or -1 if there is none.
func (s *Scan) indexNewline(from, end int) (int, error) {
	for p := from; p < end; {
		w, err := s.Input.Window(p, min(s.window(), end-p))
		if err != nil {
			return 0, err
		}
		if w.Base > p || w.End() <= p {
			s.Input.Release(w)
			return 0, fmt.Errorf("chunked: the input gave bytes [%d, %d) for [%d, %d)", w.Base, w.End(), p, end)
		}
		data := w.Data[p-w.Base : min(len(w.Data), end-w.Base)]
		i := bytes.IndexByte(data, '\n')
		s.Input.Release(w)
		if i >= 0 {
			return p + i, nil
		}
		p += len(data)
	}
	return -1, nil
}

// usualFieldsAt is usualFields over the scan's input: in place for a CSV
// in memory; else in a window of what usualFields reads, from a byte
// before start (so that start is 0 in the window only at the data's start,
// where a byte order mark is skipped).
func (s *Scan) usualFieldsAt(start int) (int, error) {
	if data, _, ok := s.mem(); ok {
		return usualFields(data, start, s.Delim), nil
	}
	w, err := s.windowAt(start, guessWindow+3)
	if err != nil {
		return 0, err
	}
	defer s.release(w)
	return usualFields(w.Data, start-w.Base, s.Delim), nil
}

// GuessStarts guesses, for each of cuts (ascending, each past from, the
// start of the first data record), where the first record at or after it
// starts, as the workers of a scan guess their chunks' starts: the guess
// of a cut in whose chunk (up to the next cut, or the input's end) no
// record starts is that chunk's end. A planner that hands the chunks to
// scans elsewhere (package multifile) uses it; those scans tell whether
// each chunk ended where the next one was guessed to start.
func (s *Scan) GuessStarts(from int, cuts []int) ([]int, error) {
	for i, b := range cuts {
		if b <= from || i > 0 && b <= cuts[i-1] || b > s.size() {
			return nil, fmt.Errorf("chunked: cuts must be ascending, past %d and within the input; cut %d is %d", from, i, b)
		}
	}
	cols, err := s.usualFieldsAt(from)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(cuts))
	for i, b := range cuts {
		limit := s.size()
		if i+1 < len(cuts) {
			limit = cuts[i+1]
		}
		if out[i], err = s.guess(b, limit, cols); err != nil {
			return nil, err
		}
	}
	return out, nil
}
