package scan

import (
	"errors"
	"io"
	"slices"
)

// MaxKeys is the most keys one scan reads (see [Scanner.InitKeys]).
const MaxKeys = 16

// ErrKeys is returned by InitKeys for fewer than two keys, more than
// MaxKeys, or a key whose columns are not those of a key (see
// ErrKeyColumns; a key may have one column).
var ErrKeys = errors.New("a scan of several keys reads 2 to 16 keys, each of 1 to 64 distinct columns, none negative")

// multiKeys is what a Scanner of several keys keeps: the union of their
// columns is read as a composite key's are, and each key is made of its
// parts on demand.
type multiKeys struct {
	keys   [][]int  // each key's places in the composite's parts, in the key's order
	last   []int    // each key's highest column
	enc    [][]byte // each key's encoding, when built
	fields int      // the fields the current record has, counted up to the last column read
}

// InitKeys makes s a scanner like [Scanner.Init] that reads several keys of
// each record at once, for a scan that builds several indexes in one pass:
// keys[j] are the columns of key j, one for a key of one column, more for
// a composite key. Call [Scanner.KeyOf] for each key; [Scanner.Key] is not
// for such a scanner.
func (s *Scanner) InitKeys(data []byte, delim byte, keys [][]int) error {
	if len(keys) < 2 || len(keys) > MaxKeys {
		return ErrKeys
	}
	var union []int
	for _, k := range keys {
		if len(k) == 0 || len(k) > MaxKeyColumns || slices.Min(k) < 0 {
			return ErrKeys
		}
		if len(k) > 1 {
			if _, err := newComposite(k); err != nil {
				return ErrKeys
			}
		}
		for _, c := range k {
			if !slices.Contains(union, c) {
				union = append(union, c)
			}
		}
	}
	slices.Sort(union)
	c, err := columnParts(union)
	if err != nil {
		return ErrKeys
	}
	m := &multiKeys{keys: make([][]int, len(keys)), last: make([]int, len(keys)), enc: make([][]byte, len(keys))}
	for j, k := range keys {
		m.last[j] = slices.Max(k)
		m.keys[j] = make([]int, len(k))
		for i, col := range k {
			m.keys[j][i] = c.posOf[col]
		}
	}
	c.multi = m
	if err := s.Init(data, delim, 0); err != nil {
		return err
	}
	s.comp = c
	return nil
}

// KeyOf returns key j of the current record, as [Scanner.Key] would for a
// scanner of that key alone (a composite key encoded), and false when the
// record lacks one of its columns. The slice is valid until the next call
// to Next, Reset or KeyOf(j).
func (s *Scanner) KeyOf(j int) ([]byte, bool) {
	c := s.comp
	m := c.multi
	if m.last[j] >= m.fields {
		return nil, false
	}
	places := m.keys[j]
	if len(places) == 1 {
		return c.decodePart(places[0]), true
	}
	enc := m.enc[j][:0]
	for i, k := range places {
		if i > 0 {
			enc = append(enc, separator[:]...)
		}
		enc = appendEscaped(enc, c.decodePart(k))
	}
	m.enc[j] = enc
	return enc, true
}

// decodePart returns the value of part k, building it first if it is long.
func (c *composite) decodePart(k int) []byte {
	p := &c.parts[k]
	if p.long {
		p.buf = p.field.appendTo(p.buf[:0])
		p.value, p.long = p.buf, false
	}
	return p.value
}

// LongKeyOf reports whether key j of the current record has a long field
// (see [Scanner.LongKey]): a caller that only hashes it streams it with
// [Scanner.WriteKeyOf] instead of building it with KeyOf.
func (s *Scanner) LongKeyOf(j int) bool {
	c := s.comp
	if !s.long || c.multi.last[j] >= c.multi.fields { // s.long: some part is long
		return false
	}
	for _, k := range c.multi.keys[j] {
		if c.parts[k].long {
			return true
		}
	}
	return false
}

// WriteKeyOf writes key j of the current record to w, as KeyOf would
// return it, in pieces: a long field is never held whole. It writes
// nothing when the record lacks one of the key's columns.
func (s *Scanner) WriteKeyOf(j int, w io.Writer) error {
	c := s.comp
	if c.multi.last[j] >= c.multi.fields {
		return nil
	}
	places := c.multi.keys[j]
	if len(places) == 1 {
		return s.writePart(places[0], w)
	}
	ew := escapingWriter{w: w}
	for i, k := range places {
		if i > 0 {
			if _, err := w.Write(separator[:]); err != nil {
				return err
			}
		}
		if err := s.writePart(k, &ew); err != nil {
			return err
		}
	}
	return nil
}

// writePart writes the value of part k to w, in pieces if it is long.
func (s *Scanner) writePart(k int, w io.Writer) error {
	p := &s.comp.parts[k]
	if !p.long {
		_, err := w.Write(p.value)
		return err
	}
	var err error
	s.scratch, err = p.field.writeTo(w, s.scratch)
	return err
}
