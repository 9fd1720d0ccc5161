package join

import (
	"bytes"
	"errors"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/scan"
)

// The bounds of a batch of LEFT records, and of a worker's output buffer:
// past outFlush bytes a worker waits for its batch's turn and writes out,
// so that a heavy key's rows stream instead of piling up.
const (
	batchBytes   = 256 << 10
	batchRecords = 4096
	outFlush     = 1 << 20
)

// A joinBatch is LEFT records a worker joins: copies of them and of their
// keys, and the channels that order the batches' output.
type joinBatch struct {
	data    []byte // the records, verbatim, one after another
	ends    []int  // where each record ends in data
	keys    []byte // their keys, one after another
	keyEnds []int  // where each key ends in keys; -1 for a record without one
	open    bool   // the last record is LEFT's last, and has no terminator
	prev    chan struct{}
	done    chan struct{} // closed when this batch's output is written
}

// reset empties b for new records, whose output follows that of the batch
// whose done is prev.
func (b *joinBatch) reset(prev chan struct{}) {
	b.data, b.ends, b.keys, b.keyEnds, b.open = b.data[:0], b.ends[:0], b.keys[:0], b.keyEnds[:0], false
	b.prev, b.done = prev, make(chan struct{})
}

// room reports whether b takes another record.
func (b *joinBatch) room() bool { return len(b.data) < batchBytes && len(b.ends) < batchRecords }

// add copies a record and its key (has: it has one) into b.
func (b *joinBatch) add(rec, key []byte, has bool) {
	b.data = append(b.data, rec...)
	b.ends = append(b.ends, len(b.data))
	end := -1
	if has {
		b.keys = append(b.keys, key...)
		end = len(b.keys)
	}
	b.keyEnds = append(b.keyEnds, end)
}

// A joinWorker joins batches into a buffer of its own.
type joinWorker struct {
	*joinRun
	buf       []byte
	rows      int64         // data rows in buf and written since the turn began
	probes    int64         // lookups made (see probed)
	turn      bool          // the batch before has been written: this one may write
	prev      chan struct{} // closed when it has
	rightRows *index.Rows   // finds RIGHT's rows
	lines     [2][]byte     // the sides of a row, when re-encoded (see side)
	bounds    []int         // a RIGHT row's fields, printing the key once (see dropKey)
	kept      [][]byte      // a RIGHT row's fields but the key's, when re-encoded
	keyVals   [][]byte      // the key's fields of a RIGHT row no LEFT row matched
	keyBuf    []byte        // those fields, when re-encoded
	keys      [][]byte      // the batch's keys to look up
	from, to  int           // the keys whose rows the last Find found
}

func (r *joinRun) newWorker() (*joinWorker, error) {
	rows, err := r.ix.Rows()
	return &joinWorker{joinRun: r, turn: true, rightRows: rows}, err
}

// work joins the batches of work in turn, and gives each back to free.
func (w *joinWorker) work(work <-chan *joinBatch, free chan<- *joinBatch) error {
	var err error
	for b := range work {
		if err == nil && w.ctx.Err() == nil {
			if err = w.join(b); err != nil {
				w.cancel(err) // before the next batch's turn: it writes nothing
			}
		}
		close(b.done) // after an error too: no batch waits for ever
		free <- b
	}
	return err
}

// join joins the records of b, and writes their output when b's turn
// comes.
func (w *joinWorker) join(b *joinBatch) error {
	w.buf, w.rows, w.turn, w.prev = w.buf[:0], 0, false, b.prev
	w.keys = w.keys[:0]
	keyStart := 0
	for _, end := range b.keyEnds {
		if end >= 0 {
			if key := b.keys[keyStart:end]; w.opts.Nulls || !bytes.Equal(key, w.null) {
				w.keys = append(w.keys, key)
			}
			keyStart = end
		}
	}
	if err := w.rightRows.Prefetch(w.keys); err != nil {
		return err
	}
	w.from, w.to = 0, 0
	start, keyStart, probes := 0, 0, 0
	for i, end := range b.ends {
		rec := b.data[start:end]
		start = end
		var key []byte
		probe := false
		if b.keyEnds[i] >= 0 {
			key = b.keys[keyStart:b.keyEnds[i]]
			keyStart = b.keyEnds[i]
			probe = w.opts.Nulls || !bytes.Equal(key, w.null)
		}
		terminated := !b.open || i < len(b.ends)-1
		if err := w.record(rec, terminated, key, probe, probes); err != nil {
			return err
		}
		if probe {
			probes++
		}
		if i%256 == 255 && w.ctx.Err() != nil {
			return nil
		}
	}
	return w.flush()
}

// findRows is how many candidate rows a worker finds at once (see
// index.Rows.Find): the memory a batch's lookups take is bounded by it,
// whatever its keys' weight. A variable, for tests.
var findRows = 1 << 16

// each calls fn with each of RIGHT's rows whose key is key, the batch's
// probe'th: found with those of the keys after it (index.Rows.Find) when
// RIGHT is mapped, else looked up alone.
func (w *joinWorker) each(key []byte, probe int, fn func(index.Span) error) error {
	data := w.ix.Data()
	if data == nil {
		return w.rightRows.Each(key, fn)
	}
	if probe >= w.to {
		n, err := w.rightRows.Find(w.keys[probe:], findRows)
		if err != nil {
			return err
		}
		w.from, w.to = probe, probe+n
		if n == 0 { // a key of more rows than that: they stream
			return w.rightRows.Each(key, fn)
		}
	}
	for _, f := range w.rightRows.Found(probe - w.from) {
		if err := fn(index.Span{Start: f.Start, End: f.End, Terminated: f.Terminated, Bytes: data[f.Start:f.End]}); err != nil {
			return err
		}
	}
	return nil
}

// record joins one LEFT record, rec, whose key is key, which is looked
// up if probe, as the batch's probe'th. terminated says whether it ends
// with its terminator.
func (w *joinWorker) record(rec []byte, terminated bool, key []byte, probe bool, n int) error {
	if probe {
		w.probed()
	}
	if w.opts.Mode == RightSemi || w.opts.Mode == RightAnti { // rows are printed after LEFT ends
		if !probe {
			return nil
		}
		return w.each(key, n, func(sp index.Span) error { w.matched.set(sp.Start); return nil })
	}
	if w.opts.Mode == Semi || w.opts.Mode == Anti {
		found := false
		if probe {
			err := w.each(key, n, func(index.Span) error { found = true; return errFound })
			if err != nil && !errors.Is(err, errFound) {
				return err
			}
		}
		if found == (w.opts.Mode == Semi) {
			w.writeRecord(rec, terminated)
			w.rows++
		}
		return w.spill()
	}
	left := w.side(rec, terminated, w.delim, leftSide)
	found := false
	if probe {
		err := w.each(key, n, func(sp index.Span) error {
			found = true
			if w.matched != nil {
				w.matched.set(sp.Start)
			}
			w.writeRow(left, w.rightPart(sp.Bytes, sp.Terminated))
			return w.spill() // a heavy key streams its rows
		})
		if err != nil {
			return err
		}
	}
	if !found && (w.opts.Mode == Left || w.opts.Mode == Full) {
		w.writeRow(left, w.emptyRight)
	}
	return w.spill()
}

// spill writes the buffer out once it holds outFlush bytes, waiting for
// the batch's turn.
func (w *joinWorker) spill() error {
	if len(w.buf) < outFlush {
		return nil
	}
	return w.flush()
}

// flush waits for the batch's turn and writes the buffer out. From then
// on the worker holds the turn until its batch is done.
func (w *joinWorker) flush() error {
	if !w.turn {
		select {
		case <-w.prev:
		case <-w.ctx.Done():
			return nil
		}
		w.turn = true
	}
	if w.ctx.Err() != nil {
		return nil // a batch before failed: write nothing after it
	}
	if _, err := w.out.Write(w.buf); err != nil { // the reader went away (head), or the disk is full
		return err
	}
	w.joinRun.rows.Add(w.rows)
	w.buf, w.rows = w.buf[:0], 0
	return nil
}

// progressEvery is how many of RIGHT's records the pass through it after
// LEFT's end goes through between two updates of its progress.
const progressEvery = 1024

// rightAfterLeft writes, once LEFT has ended, the RIGHT rows the bitmap
// selects, in RIGHT's order: for RightSemi those a LEFT row matched, each
// once and verbatim (see writeRight); for RightAnti those no LEFT row
// matched, verbatim; for Right and Full those no LEFT row matched, with
// LEFT's fields empty. The rows are those that start in the part of RIGHT
// its index covers, as they are now (a last row the index saw without its
// terminator may have been completed since, as get prints it). A row
// without the key was never matched.
func (w *joinWorker) rightAfterLeft() error {
	semi := w.opts.Mode == RightSemi
	w.rightTotal.Store(max(1, int64(w.ix.Covered()-w.right.start)))
	n := 0
	err := w.ix.EachRecord(w.ctx, w.right.start, func(sp index.Span, has bool) error {
		if n++; n%progressEvery == 0 {
			w.rightRead.Store(int64(sp.End - w.right.start))
		}
		if (has && w.matched.get(sp.Start)) != semi {
			return nil
		}
		switch {
		case w.opts.Mode.oneSide():
			w.writeRight(sp.Bytes, sp.Terminated)
			w.rows++
		case w.co.on:
			w.writeRow(w.coalesced(sp.Bytes, sp.Terminated))
		default:
			w.writeRow(w.emptyLeft, w.side(sp.Bytes, sp.Terminated, w.right.delim, rightSide))
		}
		return w.spill()
	})
	if err != nil {
		return err
	}
	w.rightRead.Store(w.rightTotal.Load())
	return w.flush()
}

// side returns a side of an output row: rec, one record of a file of
// delimiter delim, terminated or not, without its terminator: as written
// when that is valid in the output's dialect, else re-encoded. It is
// re-encoded when delim is not the output's; when rec ends with a carriage
// return that the output's terminator would take for its own; and when it
// ends inside a quoted field that never closes (an unterminated last
// record), which would take the output's next rows into that field.
func (w *joinWorker) side(rec []byte, terminated bool, delim byte, which int) []byte {
	if terminated {
		rec = trimTerminator(rec)
	}
	if w.asWritten(rec, terminated, delim) {
		return rec
	}
	fields, _, _ := scan.Fields(rec, 0, delim)
	w.lines[which] = scan.AppendRecord(w.lines[which][:0], fields, w.delim)
	return w.lines[which]
}

// asWritten reports whether rec, a record without its terminator of a file
// of delimiter delim, terminated or not, is valid as written in the
// output's dialect, as the output's row or its last fields (see side).
func (w *joinWorker) asWritten(rec []byte, terminated bool, delim byte) bool {
	return delim == w.delim && !endsCR(rec) && (terminated || !scan.Unclosed(rec, 0, delim))
}

// The sides of a row, for side's buffers.
const (
	leftSide = iota
	rightSide
)

// writeRow adds a data row to the buffer (see writeLine).
func (w *joinWorker) writeRow(left, right []byte) {
	w.writeLine(left, right)
	w.rows++
}

// writeLine adds a line of the output to the buffer: left's fields, then
// right's. With no LEFT fields at all (an empty LEFT), a line is right's
// fields alone. Printing the key once, right is nil when the RIGHT row (or
// header) has no field but its key's: the line is left's fields alone.
func (w *joinWorker) writeLine(left, right []byte) {
	if w.leftFields > 0 {
		if len(left) == 0 && right == nil && w.co.on {
			left = []byte(`""`) // one empty field, not a blank line, which is no record
		}
		w.buf = append(w.buf, left...)
		if right != nil || !w.co.on {
			w.buf = append(w.buf, w.delim)
		}
	}
	w.buf = append(w.buf, right...)
	w.buf = append(w.buf, '\n')
}

// writeRecord adds LEFT's record rec as it is, with a '\n' after an
// unterminated last record, re-encoded when it ends inside a quoted field
// that never closes (see side).
func (w *joinWorker) writeRecord(rec []byte, terminated bool) {
	if !terminated {
		rec = w.side(rec, false, w.delim, leftSide)
	}
	w.buf = append(w.buf, rec...)
	if !terminated {
		w.buf = append(w.buf, '\n')
	}
}

// writeRight adds RIGHT's record rec as writeRecord adds LEFT's: as it
// is, with a '\n' after an unterminated last record, re-encoded when it ends
// inside a quoted field that never closes; and re-encoded, with a '\n', when
// RIGHT's delimiter is not the output's.
func (w *joinWorker) writeRight(rec []byte, terminated bool) {
	if w.right.delim == w.delim {
		w.writeRecord(rec, terminated)
		return
	}
	w.buf = append(w.buf, w.side(rec, terminated, w.right.delim, rightSide)...)
	w.buf = append(w.buf, '\n')
}

// writeHeader adds the output's header: LEFT's header record first, whose
// names are names, verbatim for Semi and Anti; RIGHT's header alone for
// RightSemi and RightAnti, as writeRight adds its rows (nothing when RIGHT
// has none); else LEFT's names then RIGHT's (its column numbers when it
// has no header), with their prefixes.
func (w *joinWorker) writeHeader(first []byte, firstTerminated bool, names [][]byte) {
	if w.opts.Mode == RightSemi || w.opts.Mode == RightAnti {
		if w.right.header != nil {
			w.writeRight(w.right.header, w.right.headerTerminated)
		}
		return
	}
	if w.opts.Mode == Semi || w.opts.Mode == Anti {
		w.writeRecord(first, firstTerminated)
		return
	}
	left := w.side(first, firstTerminated, w.delim, leftSide)
	if w.opts.PrefixLeft != "" {
		left = scan.AppendRecord(nil, prefixed(w.opts.PrefixLeft, names), w.delim)
	}
	var right []byte
	switch {
	case w.right.names == nil:
		right = w.rightNames(prefixed(w.opts.PrefixRight, columnNames(w.right.fields)))
	case w.opts.PrefixRight != "":
		right = w.rightNames(prefixed(w.opts.PrefixRight, w.right.names))
	default:
		right = w.rightPart(w.right.header, w.right.headerTerminated)
	}
	w.writeLine(left, right)
}
