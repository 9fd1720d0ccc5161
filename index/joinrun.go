package index

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/csvidx/csvidx/scan"
)

// joinRun is what a join keeps as it runs (see Join.Run).
type joinRun struct {
	*Join
	ctx        context.Context
	out        *bufio.Writer
	rows       int64        // data rows written
	leftFields int          // in LEFT's header, or its first record
	null       []byte       // the key whose fields are all empty
	emptyLeft  []byte       // LEFT's fields, empty
	emptyRight []byte       // RIGHT's fields, empty
	matched    *rowBits     // the RIGHT rows a LEFT row matched, for JoinRight and JoinFull
	rscan      scan.Scanner // reads RIGHT's rows
	lines      [2][]byte    // the sides of a row, when re-encoded (see side)
	werr       error        // the first write error: it stops the join
}

// errFound stops a lookup at its first row.
var errFound = errors.New("found")

func (r *joinRun) run() error {
	if err := r.setUp(r.cols); err != nil {
		return err
	}
	if r.first != nil {
		r.writeHeader(r.first, r.names)
	}
	for n := 0; r.more; n++ {
		if n%1024 == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		more, err := r.rs.next()
		if err != nil {
			return fmt.Errorf("the left file: %w", err)
		}
		if !more {
			break
		}
		if err := r.joinRecord(); err != nil {
			return err
		}
		if r.werr != nil { // the reader went away (head), or the disk is full
			return r.werr
		}
	}
	if r.matched != nil {
		return r.unmatchedRight()
	}
	return r.werr
}

// setUp makes what every row takes: the empty sides, the null key, the
// scanner of RIGHT's rows and, for JoinRight and JoinFull, the bitmap.
func (r *joinRun) setUp(cols []int) error {
	r.emptyLeft = bytes.Repeat([]byte{r.delim}, max(r.leftFields, 1)-1)
	r.emptyRight = bytes.Repeat([]byte{r.delim}, max(r.right.fields, 1)-1)
	if len(cols) > 1 {
		r.null = scan.AppendComposite(nil, make([][]byte, len(cols)))
	} else {
		r.null = []byte{}
	}
	if r.opts.Mode == JoinRight || r.opts.Mode == JoinFull {
		r.matched = newRowBits(len(r.ix.csv.data), slices.Max(r.ix.KeyColumns()))
	}
	return r.ix.main.h.initScanner(&r.rscan, r.ix.csv.data)
}

// joinRecord joins LEFT's current record.
func (r *joinRun) joinRecord() error {
	s := r.rs.scanner()
	rec := r.rs.record()
	key, has := s.Key()
	probe := has && (r.opts.Nulls || !bytes.Equal(key, r.null))
	if r.opts.Mode == JoinSemi || r.opts.Mode == JoinAnti {
		found := false
		if probe {
			err := r.ix.rows(&r.rscan, key, func(span) error { found = true; return errFound })
			if err != nil && !errors.Is(err, errFound) {
				return err
			}
		}
		if found == (r.opts.Mode == JoinSemi) {
			r.writeVerbatim(rec)
		}
		return nil
	}
	leftPart := r.side(trimTerminator(rec), r.delim, leftSide)
	found := false
	if probe {
		err := r.ix.rows(&r.rscan, key, func(sp span) error {
			found = true
			if r.matched != nil {
				r.matched.set(sp.start)
			}
			r.writeRow(leftPart, r.side(trimTerminator(r.ix.csv.data[sp.start:sp.end]), r.right.delim, rightSide))
			return r.werr // a heavy key stops as soon as the output fails
		})
		if err != nil {
			return err
		}
	}
	if !found && (r.opts.Mode == JoinLeft || r.opts.Mode == JoinFull) {
		r.writeRow(leftPart, r.emptyRight)
	}
	return nil
}

// unmatchedRight writes the RIGHT rows no LEFT row matched, in RIGHT's
// order, with LEFT's fields empty: those of the part of RIGHT its index
// covers.
func (r *joinRun) unmatchedRight() error {
	data := r.ix.csv.data[:r.ix.furthest().scanned]
	var s scan.Scanner
	if err := r.ix.main.h.initScanner(&s, data); err != nil {
		return err
	}
	s.Reset(r.right.start)
	for n := 0; s.Next(); n++ {
		if n%1024 == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		if r.matched.get(s.Start()) {
			continue
		}
		r.writeRow(r.emptyLeft, r.side(trimTerminator(data[s.Start():s.End()]), r.right.delim, rightSide))
		if r.werr != nil {
			return r.werr
		}
	}
	return nil
}

// side returns a side of an output row: rec, one record of a file of
// delimiter delim without its terminator, as written when that is valid
// in the output's dialect, else re-encoded: when delim is not the
// output's, or rec ends with a carriage return that the output's
// terminator would take for its own.
func (r *joinRun) side(rec []byte, delim byte, which int) []byte {
	if delim == r.delim && (len(rec) == 0 || rec[len(rec)-1] != '\r') {
		return rec
	}
	fields, _, _ := scan.Fields(rec, 0, delim)
	r.lines[which] = appendRecord(r.lines[which][:0], fields, r.delim)
	return r.lines[which]
}

// The sides of a row, for side's buffers.
const (
	leftSide = iota
	rightSide
)

// writeRow writes a data row of the output (see writeLine).
func (r *joinRun) writeRow(left, right []byte) {
	r.writeLine(left, right)
	r.rows++
}

// writeLine writes a line of the output: left's fields, then right's. With
// no LEFT fields at all (an empty LEFT), a line is right's fields alone.
// The buffered writer keeps its first error, which writeLine records.
func (r *joinRun) writeLine(left, right []byte) {
	if r.leftFields > 0 {
		r.out.Write(left)
		r.out.WriteByte(r.delim)
	}
	r.out.Write(right)
	r.werr = r.out.WriteByte('\n')
}

// writeVerbatim writes LEFT's data record rec (see writeRecord).
func (r *joinRun) writeVerbatim(rec []byte) {
	r.writeRecord(rec)
	r.rows++
}

// writeRecord writes LEFT's record rec as it is, with a '\n' after an
// unterminated last record.
func (r *joinRun) writeRecord(rec []byte) {
	_, r.werr = r.out.Write(rec)
	if len(rec) == 0 || rec[len(rec)-1] != '\n' {
		r.werr = r.out.WriteByte('\n')
	}
}

// writeHeader writes the output's header: LEFT's header record first,
// whose names are names, verbatim for JoinSemi and JoinAnti; else its names
// then RIGHT's (its column numbers when it has no header), with their
// prefixes.
func (r *joinRun) writeHeader(first []byte, names [][]byte) {
	if r.opts.Mode == JoinSemi || r.opts.Mode == JoinAnti {
		r.writeRecord(first)
		return
	}
	left := r.side(trimTerminator(first), r.delim, leftSide)
	if r.opts.PrefixLeft != "" {
		left = appendRecord(nil, prefixed(r.opts.PrefixLeft, names), r.delim)
	}
	left = bytes.Clone(left)
	var right []byte
	switch {
	case r.right.names == nil:
		right = appendRecord(nil, prefixed(r.opts.PrefixRight, columnNames(r.right.fields)), r.delim)
	case r.opts.PrefixRight != "":
		right = appendRecord(nil, prefixed(r.opts.PrefixRight, r.right.names), r.delim)
	default:
		right = r.side(r.right.header, r.right.delim, rightSide)
	}
	r.writeLine(left, right)
}

// prefixed returns names, each with prefix before it.
func prefixed(prefix string, names [][]byte) [][]byte {
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = append([]byte(prefix), n...)
	}
	return out
}

// rowBits marks RIGHT's rows by their offsets, a bit per gap bytes: two
// rows that have a key start at least gap bytes apart (each holds a field
// per column up to its key's last and a terminator, and is no blank line),
// so no two share a bit.
type rowBits struct {
	gap  int
	bits []uint64
}

// newRowBits returns the bitmap of the rows of a CSV of size bytes whose
// key's last column is lastCol.
func newRowBits(size, lastCol int) *rowBits {
	gap := max(2, lastCol+1)
	return &rowBits{gap: gap, bits: make([]uint64, size/gap/64+1)}
}

func (b *rowBits) set(off int) {
	i := off / b.gap
	b.bits[i>>6] |= 1 << (i & 63)
}

func (b *rowBits) get(off int) bool {
	i := off / b.gap
	return b.bits[i>>6]&(1<<(i&63)) != 0
}
