package chunked

import (
	"fmt"

	"github.com/csvidx/csvidx/internal/mapping"
)

// defaultWindow is the most bytes a scan reads at a time from a windowed
// input unless its plan says otherwise (see Scan.window): the windows in
// use, a worker's each and the stitcher's, are not counted in the plan's
// memory, and a record cut at a window's end is read again, so they are
// neither as large as the largest chunks nor small.
const defaultWindow = 4 << 20

// mem returns the CSV and its mapping when it is in memory (Data, or a
// Mapped input): the scan then reads it in place, as one slice.
func (s *Scan) mem() ([]byte, *mapping.Map, bool) {
	switch in := s.Input.(type) {
	case nil:
		return s.Data, s.Map, true
	case *Mapped:
		return in.Data, in.Map, true
	}
	return nil, nil, false
}

// size returns the CSV's length.
func (s *Scan) size() int {
	if data, _, ok := s.mem(); ok {
		return len(data)
	}
	return s.Input.Size()
}

// window returns the bytes a scan asks a windowed input for at a time: the
// plan's, or a chunk and as much as a guess reads past it, so that a
// worker reads its chunk in one window, up to defaultWindow.
func (s *Scan) window() int {
	switch {
	case s.Plan.WindowBytes > 0:
		return s.Plan.WindowBytes
	case s.Plan.ChunkBytes > 0:
		return min(s.Plan.ChunkBytes+guessWindow, defaultWindow)
	}
	return defaultWindow
}

// windowAt returns a window holding [p-1, p+n) of the input (from 0 when p
// is 0), or up to its end; one that holds less is an error. The byte
// before p keeps p's position in the window above 0 unless p is the
// data's start: a scanner reset to 0 skips a byte order mark.
func (s *Scan) windowAt(p, n int) (Window, error) {
	if data, _, ok := s.mem(); ok {
		return Window{Data: data}, nil
	}
	off := max(0, p-1)
	w, err := s.Input.Window(off, p-off+n)
	if err == nil && (w.Base > off || w.End() < min(p+n, s.Input.Size())) {
		s.Input.Release(w)
		return Window{}, fmt.Errorf("chunked: the input gave bytes [%d, %d) for [%d, %d)", w.Base, w.End(), off, p+n)
	}
	return w, err
}

// release hands w back to a windowed input.
func (s *Scan) release(w Window) {
	if _, _, ok := s.mem(); !ok {
		s.Input.Release(w)
	}
}
