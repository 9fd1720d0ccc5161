package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The source section of the header page (FlagSource) describes a CSV read
// through a backend, a compressed file, whose record offsets are offsets
// of its plain bytes: what the file on disk was when the index was built,
// and the backend's table of it (where each of its frames starts in the
// file and in the plain bytes), kept on table pages after the record
// pages, so that opening the CSV again reads the table, not the file.
// See "The source section" in format.go.
const (
	sourceOffset    = 3700 // the source section in the header page
	MaxBackendName  = 16   // bytes of a backend's name, at most
	TablePageBytes  = 4080 // table bytes on a table page
	tablePageNo     = 4080 // a table page's number among the table pages
	tablePageLen    = 4088 // the table bytes on a table page
	maxTableBytes   = 1 << 40
	sourceEndOffset = sourceOffset + 56 // the section's end; zero up to the composite key's columns
)

// SourceInfo is the source section of a header: the file a CSV was read
// from through a backend, as it was when the index was built.
type SourceInfo struct {
	// Backend names the backend that reads the file ("bgzf", "zstd"), at
	// most MaxBackendName bytes.
	Backend string
	// Size is the file's size on disk.
	Size uint64
	// HeadSum and TailSum are the XXH3-64 of the file's first and last
	// min(EndHashLen, Size) bytes on disk.
	HeadSum, TailSum uint64
	// Table is the backend's table of the file, on the table pages; nil
	// in a header DecodeHeader returns (see ReadTable).
	Table []byte

	tableLen uint64 // the table's length, as the header page says
}

// TableLen returns the table's length in bytes.
func (s *SourceInfo) TableLen() uint64 {
	if s.Table != nil {
		return uint64(len(s.Table))
	}
	return s.tableLen
}

// TablePages returns how many table pages hold the table.
func (s *SourceInfo) TablePages() uint64 {
	return (s.TableLen() + TablePageBytes - 1) / TablePageBytes
}

// SetSource records in h the source section s (nil for none), setting
// FlagSource or clearing it.
func (h *Header) SetSource(s *SourceInfo) {
	h.Source = s
	h.Flags &^= FlagSource
	if s != nil {
		h.Flags |= FlagSource
	}
}

// encode writes the section into the header page.
func (s *SourceInfo) encode(page []byte) {
	le := binary.LittleEndian
	copy(page[sourceOffset:sourceOffset+MaxBackendName], s.Backend)
	le.PutUint64(page[sourceOffset+16:], s.Size)
	le.PutUint64(page[sourceOffset+24:], s.HeadSum)
	le.PutUint64(page[sourceOffset+32:], s.TailSum)
	le.PutUint64(page[sourceOffset+40:], s.TableLen())
	le.PutUint64(page[sourceOffset+48:], s.TablePages())
}

// decodeSource reads the section from the header page, all but the table,
// and returns what is wrong with it, or "".
func decodeSource(page []byte) (s *SourceInfo, problem string) {
	le := binary.LittleEndian
	name := page[sourceOffset : sourceOffset+MaxBackendName]
	n := bytes.IndexByte(name, 0)
	if n < 0 {
		n = len(name)
	}
	s = &SourceInfo{
		Backend: string(name[:n]),
		Size:    le.Uint64(page[sourceOffset+16:]),
		HeadSum: le.Uint64(page[sourceOffset+24:]),
		TailSum: le.Uint64(page[sourceOffset+32:]),
	}
	s.tableLen = le.Uint64(page[sourceOffset+40:])
	pages := le.Uint64(page[sourceOffset+48:])
	switch {
	case n == 0 || !AllZero(name[n:]) || !printable(name[:n]):
		return nil, fmt.Sprintf("a source backend named %q", name)
	case s.tableLen > maxTableBytes || pages != s.TablePages():
		return nil, fmt.Sprintf("a source table of %d bytes on %d pages", s.tableLen, pages)
	case s.Size > maxOffset:
		return nil, fmt.Sprintf("a source file of %d bytes", s.Size)
	}
	return s, ""
}

func printable(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// tablePage returns table page i of table, sealed.
func tablePage(table []byte, i uint64) []byte {
	le := binary.LittleEndian
	page := make([]byte, PageSize)
	chunk := table[i*TablePageBytes : min(uint64(len(table)), (i+1)*TablePageBytes)]
	copy(page, chunk)
	le.PutUint64(page[tablePageNo:], i)
	le.PutUint32(page[tablePageLen:], uint32(len(chunk)))
	le.PutUint32(page[CRCOffset:], PageCRC(page))
	return page
}

// ReadTable reads the table of h's source section (nil without one) from
// data, the whole index file, checking each table page: its CRC, its number and its
// length. The header must be valid (DecodeHeader) and the file h.Size()
// bytes long.
func ReadTable(h *Header, data []byte) ([]byte, error) {
	s := h.Source
	if s == nil {
		return nil, nil
	}
	le := binary.LittleEndian
	n := s.TableLen()
	table := make([]byte, 0, n)
	for i := range s.TablePages() {
		at := PageSize * (1 + h.Pages + i)
		page := data[at : at+PageSize]
		want := min(TablePageBytes, n-i*TablePageBytes)
		switch {
		case le.Uint32(page[CRCOffset:]) != PageCRC(page):
			return nil, fmt.Errorf("%w: table page %d: checksum mismatch", ErrCorrupt, i)
		case le.Uint64(page[tablePageNo:]) != i || uint64(le.Uint32(page[tablePageLen:])) != want:
			return nil, fmt.Errorf("%w: table page %d: its trailer says page %d of %d bytes", ErrCorrupt, i, le.Uint64(page[tablePageNo:]), le.Uint32(page[tablePageLen:]))
		case !AllZero(page[want:tablePageNo]):
			return nil, fmt.Errorf("%w: table page %d: reserved bytes are not zero", ErrCorrupt, i)
		}
		table = append(table, page[:want]...)
	}
	return table, nil
}
