package multifile

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/source"
)

// The parts table is the list of a manifest's files, in a binary file
// beside it (BASE.RUN.parts), so that the manifest stays small and a
// lookup reads the entries of the parts it needs, by offset, whatever
// their number: a binary search for the part that holds a row, then that
// part's entry and name. Its layout, all little-endian:
//
//	magic   "csvidxp1"           8 bytes
//	count   uint64               the parts
//	names   uint64               the bytes of the names
//	size    uint64               the concatenation's size
//	count × entry, 48 bytes each:
//	  base     uint64            where the part starts in the concatenation
//	  size     uint64            Part.Size
//	  head     uint64            Part.Head, as a number
//	  tail     uint64            Part.Tail, as a number
//	  skip     uint32            Part.Skip
//	  name     uint32            where its Path starts among the names
//	  nameLen  uint16            its Path's length
//	  flags    uint16            bit 0: Part.Newline
//	  crc      uint32            CRC-32C of the 44 bytes before it and of the Path
//	the names, one after the other
//
// Each entry is checked when read: a damaged table is an error, never a
// wrong row.
const (
	tableMagic  = "csvidxp1"
	tableHeader = 32
	entrySize   = 48
	maxPathLen  = 1<<16 - 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// partsName returns the name of the parts table of the run run of the
// manifest at path: BASE.RUN.parts, beside it.
func partsName(path, run string) string {
	return fmt.Sprintf("%s.%s.parts", filepath.Base(path), run)
}

// writeTable writes parts as the table at path, atomically.
func writeTable(path string, parts []Part) error {
	out, err := atomicfile.Create(path, false, 0o644)
	if err != nil {
		return err
	}
	defer out.Abort()
	w := bufio.NewWriterSize(out, 256<<10)
	var names, size int64
	for _, p := range parts {
		if len(p.Path) > maxPathLen {
			return fmt.Errorf("%.80s...: a path of %d bytes; csvidx takes up to %d", p.Path, len(p.Path), maxPathLen)
		}
		if p.Skip < 0 || p.Skip > p.Size || p.Skip > 1<<32-1 {
			return fmt.Errorf("%s: a header of %d bytes, of %d", p.Path, p.Skip, p.Size)
		}
		names += int64(len(p.Path))
		size += partLen(p)
	}
	if names > 1<<32-1 {
		return fmt.Errorf("%d parts whose paths hold %d bytes: at most 4 GiB", len(parts), names)
	}
	head := make([]byte, tableHeader)
	copy(head, tableMagic)
	binary.LittleEndian.PutUint64(head[8:], uint64(len(parts)))
	binary.LittleEndian.PutUint64(head[16:], uint64(names))
	binary.LittleEndian.PutUint64(head[24:], uint64(size))
	w.Write(head)
	var base, name int64
	e := make([]byte, entrySize)
	for _, p := range parts {
		encodeEntry(e, p, base, name)
		w.Write(e)
		base += partLen(p)
		name += int64(len(p.Path))
	}
	for _, p := range parts {
		w.WriteString(p.Path)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return out.Commit()
}

// encodeEntry writes the entry of p, which starts at base in the
// concatenation and whose path at name among the names, into e.
func encodeEntry(e []byte, p Part, base, name int64) {
	le := binary.LittleEndian
	le.PutUint64(e[0:], uint64(base))
	le.PutUint64(e[8:], uint64(p.Size))
	le.PutUint64(e[16:], hexHash(p.Head))
	le.PutUint64(e[24:], hexHash(p.Tail))
	le.PutUint32(e[32:], uint32(p.Skip))
	le.PutUint32(e[36:], uint32(name))
	le.PutUint16(e[40:], uint16(len(p.Path)))
	flags := uint16(0)
	if p.Newline {
		flags |= 1
	}
	le.PutUint16(e[42:], flags)
	crc := crc32.Update(crc32.Checksum(e[:44], castagnoli), castagnoli, []byte(p.Path))
	le.PutUint32(e[44:], crc)
}

// hexHash returns the hash that 16 hex digits write (0 for none).
func hexHash(h string) uint64 {
	n, _ := strconv.ParseUint(h, 16, 64)
	return n
}

// partLen returns the bytes part p takes in the concatenation.
func partLen(p Part) int64 {
	return source.ConcatPart{Size: p.Size, Skip: p.Skip, Newline: p.Newline}.Len()
}

// A table is a parts table open for reading, an entry at a time.
type table struct {
	f     tableFile
	path  string
	n     int
	size  int64 // the concatenation's
	names int64 // where the names start in the file
}

// openTable opens the parts table at path, which must list count parts of
// a concatenation of size bytes, as the manifest says.
func openTable(path string, count int, size int64) (*table, error) {
	f, err := openTableFile(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, tableHeader)
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		f.Close()
		return nil, err
	}
	le := binary.LittleEndian
	n, names, total := le.Uint64(head[8:]), le.Uint64(head[16:]), le.Uint64(head[24:])
	if string(head[:8]) != tableMagic || n != uint64(count) || total != uint64(size) || n > 1<<40 ||
		uint64(f.Size()) != tableHeader+n*entrySize+names {
		f.Close()
		return nil, fmt.Errorf("%s: a damaged parts table, or another run's: build the index again", path)
	}
	return &table{f: f, path: path, n: count, size: size, names: tableHeader + int64(n)*entrySize}, nil
}

// entry returns part i and where it starts, checked.
func (t *table) entry(i int) (Part, int64, error) {
	if i < 0 || i >= t.n {
		return Part{}, 0, fmt.Errorf("%s: part %d of %d", t.path, i, t.n)
	}
	e := make([]byte, entrySize)
	if _, err := t.f.ReadAt(e, tableHeader+int64(i)*entrySize); err != nil {
		return Part{}, 0, fmt.Errorf("%s: %w", t.path, err)
	}
	le := binary.LittleEndian
	name := make([]byte, le.Uint16(e[40:]))
	if _, err := t.f.ReadAt(name, t.names+int64(le.Uint32(e[36:]))); err != nil && !(err == io.EOF && len(name) == 0) {
		return Part{}, 0, fmt.Errorf("%s: %w", t.path, err)
	}
	if crc32.Update(crc32.Checksum(e[:44], castagnoli), castagnoli, name) != le.Uint32(e[44:]) {
		return Part{}, 0, fmt.Errorf("%s: part %d's entry is damaged (its checksum): build the index again", t.path, i)
	}
	p := Part{Path: string(name), Size: int64(le.Uint64(e[8:])), Skip: int64(le.Uint32(e[32:])), Newline: le.Uint16(e[42:])&1 != 0}
	if p.Size > 0 { // an empty file's ends have no hash
		p.Head, p.Tail = fmt.Sprintf("%016x", le.Uint64(e[16:])), fmt.Sprintf("%016x", le.Uint64(e[24:]))
	}
	return p, int64(le.Uint64(e[0:])), nil
}

// base returns where part i starts, checked.
func (t *table) base(i int) (int64, error) {
	_, b, err := t.entry(i)
	return b, err
}

// find returns the part that holds off: a binary search of the bases.
func (t *table) find(off int64) (int, error) {
	var err error
	i := sort.Search(t.n, func(k int) bool {
		if err != nil {
			return true
		}
		b, e := t.base(k)
		err = e
		return b > off
	})
	return max(0, i-1), err
}

// all returns every part.
func (t *table) all() ([]Part, error) {
	parts := make([]Part, t.n)
	for i := range parts {
		var err error
		if parts[i], _, err = t.entry(i); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// close closes the table.
func (t *table) close() error { return t.f.Close() }
