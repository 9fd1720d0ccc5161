package chunked

import "github.com/csvidx/csvidx/scan"

// A walk reads the records of [pos, limit) through an input's windows, a
// scanner over each. A record that reaches the end of its window short of
// the input's end is read again, from its start, in the next window (see
// cut), twice as large if the record started where the window's scan did:
// so every record is read whole, and the scanner finds in a window
// exactly what it finds in the whole CSV.
type walk struct {
	s     *Scan
	pos   int // where the next window's scan starts
	limit int
	n     int // bytes to ask for past pos
	w     Window
	held  bool // w is to be released
	done  bool
}

// newWalk starts a walk of s's records from pos to limit.
func (s *Scan) newWalk(pos, limit int) walk {
	return walk{s: s, pos: pos, limit: limit, n: s.window()}
}

// next returns the next window to scan, with the scanner sc reset on pos
// in it and limited as the walk is, or false at the walk's end. It
// releases the window before.
func (k *walk) next(sc *scan.Scanner, init func(*scan.Scanner, []byte) error) (bool, error) {
	k.close()
	if k.done {
		return false, nil
	}
	w, err := k.s.windowAt(k.pos, k.n)
	if err != nil {
		return false, err
	}
	k.w, k.held = w, true
	if err := init(sc, w.Data); err != nil {
		return false, err
	}
	sc.Reset(k.pos - w.Base)
	sc.SetLimit(k.limit - min(k.limit, w.Base))
	return true, nil
}

// last reports whether the current window reaches the input's end: a
// record that runs to its end is the CSV's last, not cut short. (A
// Streamed input knows its size once a window reached its end.)
func (k *walk) last() bool { return k.w.End() >= k.s.size() }

// cut goes on from the record sc is on, which runs to the end of the
// window: the next window starts where it does.
func (k *walk) cut(sc *scan.Scanner) {
	start := k.w.Base + sc.Start()
	if start == k.pos {
		k.n = 2 * max(k.n, k.w.End()-k.pos) // the record is longer than the window
	} else {
		k.n = k.s.window()
	}
	k.pos = start
}

// stopped goes on from where sc stopped at the end of its window or at the
// limit; the walk ends at the limit or the input's end.
func (k *walk) stopped(sc *scan.Scanner) {
	k.pos = k.w.Base + sc.Pos()
	k.n = k.s.window()
	k.done = k.pos >= k.limit || k.last()
}

// close releases the current window, if any.
func (k *walk) close() {
	if k.held {
		k.s.release(k.w)
		k.w, k.held = Window{}, false
	}
}

// walkRange walks the records of [from, limit) window by window (see
// walk), counting blank lines in t: init sets a scanner on a window's
// bytes, and read reads the window's records with it and reports whether
// it stopped at a record cut short by the window's end. It returns where
// the walk stopped: at the limit or the input's end, or after the record
// at which read returned errChunkFull (with that error).
func (s *Scan) walkRange(from, limit int, t *Tally, init func(*scan.Scanner, []byte) error, read func(*scan.Scanner, *walk) (bool, error)) (int, error) {
	sc := new(scan.Scanner)
	k := s.newWalk(from, limit)
	defer k.close()
	for {
		ok, err := k.next(sc, init)
		if err != nil || !ok {
			return k.pos, err
		}
		cut, err := read(sc, &k)
		t.Blanks += uint64(sc.Blanks())
		switch {
		case err == errChunkFull:
			return k.w.Base + sc.Pos(), err
		case err != nil:
			return 0, err
		case cut:
			k.cut(sc)
		default:
			k.stopped(sc)
		}
	}
}
