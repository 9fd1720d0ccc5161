package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// streamBuffer is the size of a Stream's first buffer; it doubles
// for a record that does not fit.
const streamBuffer = 1 << 20

// maxStreamRecord bounds one record of a stream: a quote that never
// closes makes the rest of the input one record, which must not take all
// memory.
const maxStreamRecord = 1 << 30

// A Stream reads the records of a CSV from a reader, with the
// Scanner of the index build (the same dialect: quotes, CRLF, blank lines,
// a byte order mark), in constant memory: a buffer that holds the record
// being read and what was read after it, grown only for a record larger
// than it.
type Stream struct {
	r        io.Reader
	initScan func(s *Scanner, data []byte) error // sets the delimiter and key columns
	buf      []byte
	base     int64 // the input offset of buf[0]
	off, n   int   // the scanner reads buf[off:n]
	eof      bool  // r has no more bytes
	started  bool
	s        Scanner
}

// NewStream returns a stream of the records of r, whose scanner
// initScan sets up over each window of the input.
func NewStream(r io.Reader, initScan func(s *Scanner, data []byte) error) *Stream {
	return &Stream{r: r, initScan: initScan, buf: make([]byte, streamBuffer)}
}

// NewStreamAt returns a stream of the records of r as NewStream does, for
// r that reads a file from offset at, a record's start: Offset counts from
// there, and a byte order mark is skipped only at offset 0.
func NewStreamAt(r io.Reader, at int64, initScan func(s *Scanner, data []byte) error) *Stream {
	rs := NewStream(r, initScan)
	rs.base = at
	return rs
}

// Offset returns the input offset of the current record's first byte.
func (rs *Stream) Offset() int64 { return rs.base + int64(rs.off+rs.s.Start()) }

// Next advances to the next record and returns false at the end of the
// input. The record is then current in the scanner (see Scanner and
// Record) until the next call.
func (rs *Stream) Next() (bool, error) {
	if !rs.started {
		rs.started = true
		if err := rs.fill(len(BOM)); err != nil {
			return false, err
		}
		if rs.base == 0 && bytes.HasPrefix(rs.buf[:rs.n], BOM) {
			rs.off = len(BOM)
		}
		if err := rs.rescan(); err != nil {
			return false, err
		}
	}
	for {
		if rs.s.Next() {
			if rs.s.Terminated() || rs.eof {
				return true, nil
			}
			rs.off += rs.s.Start() // read the record again with more after it
		} else {
			if rs.eof {
				return false, nil
			}
			rs.off += rs.s.Pos()
		}
		if err := rs.fill(rs.n - rs.off + 1); err != nil {
			return false, err
		}
		if err := rs.rescan(); err != nil {
			return false, err
		}
	}
}

// Rekey reads the input again with the scanner initScan sets up, from the
// current record's start, or with skip from the record after it.
func (rs *Stream) Rekey(initScan func(s *Scanner, data []byte) error, skip bool) error {
	if skip {
		rs.off += rs.s.End()
	} else {
		rs.off += rs.s.Start()
	}
	rs.initScan = initScan
	return rs.rescan()
}

// RowsLeft estimates the records left in the input, when it is a regular
// file: its bytes left, over the mean size of a line in the bytes read and
// not yet scanned. It returns 0 when it cannot tell.
func (rs *Stream) RowsLeft() int64 {
	f, ok := rs.r.(*os.File)
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	window := rs.buf[rs.off:rs.n]
	lines := bytes.Count(window, []byte{'\n'})
	if err != nil || lines == 0 {
		return 0
	}
	left := st.Size() - pos + int64(len(window))
	return left * int64(lines) / int64(len(window))
}

// Scanner returns the scanner, on the current record: its key, and its
// start and end in Record's window.
func (rs *Stream) Scanner() *Scanner { return &rs.s }

// Record returns the current record verbatim, from its first byte through
// its terminator (none for an unterminated last record).
func (rs *Stream) Record() []byte {
	return rs.buf[rs.off+rs.s.Start() : rs.off+rs.s.End()]
}

// rescan sets the scanner on buf[off:n].
func (rs *Stream) rescan() error {
	return rs.initScan(&rs.s, rs.buf[rs.off:rs.n])
}

// fill moves the unread bytes to the front of the buffer and reads until
// it holds at least want of them or the input ends, growing the buffer if
// it is too small.
func (rs *Stream) fill(want int) error {
	copy(rs.buf, rs.buf[rs.off:rs.n])
	rs.n -= rs.off
	rs.base += int64(rs.off)
	rs.off = 0
	if want > len(rs.buf) {
		if want > maxStreamRecord {
			return fmt.Errorf("a record of more than %d MiB: a quote that never closes?", maxStreamRecord>>20)
		}
		grown := make([]byte, max(want, 2*len(rs.buf)))
		copy(grown, rs.buf[:rs.n])
		rs.buf = grown
	}
	for rs.n < want && !rs.eof {
		k, err := rs.r.Read(rs.buf[rs.n:])
		rs.n += k
		switch {
		case errors.Is(err, io.EOF):
			rs.eof = true
		case err != nil:
			return err
		}
	}
	return nil
}
