package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
)

// Header is the decoded header page; the fields are described in format.go.
type Header struct {
	Version      uint32 // VersionFlat (the zero value writes it) or VersionDense
	FPBits       uint8  // F, for VersionDense: the bits of a key's fingerprint
	OffBits      uint8  // W, for VersionDense: the bits of a row's offset
	Flags        uint32
	Delim        byte
	KeyCol       uint32
	Generation   uint64
	Parent       uint64
	Base         uint64
	Resume       uint64
	Scanned      uint64
	HeaderStart  uint64
	HeaderEnd    uint64
	Records      uint64
	Rows         uint64
	ShortRows    uint64
	Blanks       uint64
	Pages        uint64
	HeadChecksum uint64
	TailChecksum uint64
	KeyName      []byte
	KeyCols      []uint32    // a composite key's columns (FlagComposite), in the key's order; KeyCol is the first
	Source       *SourceInfo // the file a CSV read through a backend was (FlagSource), else nil
}

// Encode writes h into page (PageSize bytes, zero on entry) and seals it
// with its CRC.
func (h *Header) Encode(page []byte) {
	le := binary.LittleEndian
	crcpage.Stamp(page, Magic, h.FormatVersion())
	le.PutUint32(page[12:], h.Flags)
	page[16] = h.Delim
	page[17] = quoteChar
	if h.Dense() {
		page[18], page[19] = h.FPBits, h.OffBits
	}
	le.PutUint32(page[20:], h.KeyCol)
	le.PutUint64(page[24:], h.Generation)
	le.PutUint64(page[32:], h.Parent)
	le.PutUint64(page[40:], h.Base)
	le.PutUint64(page[48:], h.Resume)
	le.PutUint64(page[56:], h.Scanned)
	le.PutUint64(page[64:], h.HeaderStart)
	le.PutUint64(page[72:], h.HeaderEnd)
	le.PutUint64(page[80:], h.Records)
	le.PutUint64(page[88:], h.Rows)
	le.PutUint64(page[96:], h.ShortRows)
	le.PutUint64(page[104:], h.Blanks)
	le.PutUint64(page[112:], h.Pages)
	le.PutUint64(page[120:], h.HeadChecksum)
	le.PutUint64(page[128:], h.TailChecksum)
	name := h.KeyName[:min(len(h.KeyName), MaxKeyName)]
	le.PutUint16(page[136:], uint16(len(name)))
	copy(page[keyNameOffset:], name)
	if h.Source != nil {
		h.Source.encode(page)
	}
	if h.Flags&FlagComposite != 0 {
		le.PutUint16(page[keyColsOffset:], uint16(len(h.KeyCols)))
		for i, c := range h.KeyCols {
			le.PutUint32(page[keyColsOffset+2+4*i:], c)
		}
	}
	crcpage.Seal(page)
}

// DecodeHeader parses and validates a header page: magic, then version, then
// CRC, then every field that must agree with the others. It does not look at
// the record pages.
func DecodeHeader(page []byte) (*Header, error) {
	le := binary.LittleEndian
	if len(page) < PageSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header page", ErrCorrupt, len(page))
	}
	v := uint32(VersionDense) // a version this code does not read is reported as one
	if got := crcpage.Version(page); got == VersionFlat {
		v = VersionFlat
	}
	switch err := crcpage.Check(page, Magic, v); {
	case errors.Is(err, crcpage.ErrMagic):
		return nil, ErrNotIndex
	case errors.Is(err, crcpage.ErrVersion):
		return nil, fmt.Errorf("%w: format version %d, this csvidx reads versions %d and %d", ErrVersion, crcpage.Version(page), VersionFlat, VersionDense)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err) // header checksum mismatch
	}
	h := &Header{
		Version:      v,
		Flags:        le.Uint32(page[12:]),
		Delim:        page[16],
		KeyCol:       le.Uint32(page[20:]),
		Generation:   le.Uint64(page[24:]),
		Parent:       le.Uint64(page[32:]),
		Base:         le.Uint64(page[40:]),
		Resume:       le.Uint64(page[48:]),
		Scanned:      le.Uint64(page[56:]),
		HeaderStart:  le.Uint64(page[64:]),
		HeaderEnd:    le.Uint64(page[72:]),
		Records:      le.Uint64(page[80:]),
		Rows:         le.Uint64(page[88:]),
		ShortRows:    le.Uint64(page[96:]),
		Blanks:       le.Uint64(page[104:]),
		Pages:        le.Uint64(page[112:]),
		HeadChecksum: le.Uint64(page[120:]),
		TailChecksum: le.Uint64(page[128:]),
	}
	nameLen := int(le.Uint16(page[136:]))
	var problem, dense, sourceProblem string
	if h.Flags&FlagSource != 0 {
		sourceProblem = h.decodeSource(page)
	}
	if v == VersionDense {
		dense = h.CheckDense(page[18], page[19])
	}
	switch {
	case h.Flags&^knownFlags != 0:
		problem = fmt.Sprintf("unknown flags %#x", h.Flags)
	case page[17] != quoteChar:
		problem = "bad quote byte"
	case v == VersionFlat && (page[18] != 0 || page[19] != 0):
		problem = "reserved bytes are not zero"
	case h.Delim == quoteChar || h.Delim == '\r' || h.Delim == '\n':
		problem = fmt.Sprintf("bad delimiter %q", h.Delim)
	case nameLen > MaxKeyName:
		problem = fmt.Sprintf("key name of %d bytes", nameLen)
	case nameLen <= MaxKeyName && !AllZero(page[keyNameOffset+nameLen:sourceOffset]):
		problem = "reserved bytes are not zero"
	case h.Flags&FlagSource == 0 && !AllZero(page[sourceOffset:keyColsOffset]), !AllZero(page[sourceEndOffset:keyColsOffset]):
		problem = "reserved bytes are not zero"
	case sourceProblem != "":
		problem = sourceProblem
	case h.Flags&FlagComposite == 0 && !AllZero(page[keyColsOffset:CRCOffset]):
		problem = "reserved bytes are not zero"
	case h.Flags&FlagComposite != 0:
		problem = h.decodeKeyCols(page)
	case h.Scanned > maxOffset || h.Pages > maxOffset/PageSize:
		problem = fmt.Sprintf("sizes out of range: %d bytes scanned, %d pages", h.Scanned, h.Pages)
	case v == VersionFlat && h.Pages != recordPages(h.Records):
		problem = fmt.Sprintf("%d records on %d pages", h.Records, h.Pages)
	case dense != "":
		problem = dense
	case h.Records > h.Rows:
		problem = fmt.Sprintf("%d records for %d rows", h.Records, h.Rows)
	case h.Base > h.Resume || h.Resume > h.Scanned:
		problem = fmt.Sprintf("offsets out of order: base %d, resume %d, scanned %d", h.Base, h.Resume, h.Scanned)
	case h.HeaderStart > h.HeaderEnd || h.HeaderEnd > h.Scanned:
		problem = fmt.Sprintf("header record [%d, %d) outside the scanned %d bytes", h.HeaderStart, h.HeaderEnd, h.Scanned)
	}
	if problem != "" {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, problem)
	}
	h.KeyName = bytes.Clone(page[keyNameOffset : keyNameOffset+nameLen])
	return h, nil
}

// CheckDense sets F and W of a format 2 header and returns what is wrong
// with its fields, or "".
func (h *Header) CheckDense(fpBits, offBits uint8) string {
	h.FPBits, h.OffBits = fpBits, offBits
	switch {
	case h.Flags&FlagTail != 0:
		return "a tail in format 2" // tails keep the 16-byte records of format 1
	case h.FPBits < MinFPBits || h.FPBits > 64 || h.OffBits == 0 || h.OffBits > 63:
		return fmt.Sprintf("fingerprints of %d bits, offsets of %d", h.FPBits, h.OffBits)
	case h.Scanned>>h.OffBits != 0:
		return fmt.Sprintf("offsets of %d bits for %d bytes scanned", h.OffBits, h.Scanned)
	case h.Pages > h.Records || (h.Pages == 0) != (h.Records == 0):
		return fmt.Sprintf("%d records on %d pages", h.Records, h.Pages)
	}
	return ""
}

// Dense reports whether the file's record pages are format 2's.
func (h *Header) Dense() bool { return h.Version == VersionDense }

// FormatVersion returns the version the header says.
func (h *Header) FormatVersion() uint32 {
	if h.Dense() {
		return VersionDense
	}
	return VersionFlat
}

// Size returns the length an index file with this header must have: the
// header, the record pages and the table pages.
func (h *Header) Size() uint64 {
	n := PageSize * (1 + h.Pages)
	if h.Source != nil {
		n += PageSize * h.Source.TablePages()
	}
	return n
}

// decodeSource reads the source section into h and returns what is wrong
// with it, or "".
func (h *Header) decodeSource(page []byte) string {
	s, problem := decodeSource(page)
	h.Source = s
	return problem
}

// AllZero reports whether every byte of b is zero: reserved bytes must be.
func AllZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeKeyCols reads the columns of a composite key from the header page
// and returns what is wrong with them, or "".
func (h *Header) decodeKeyCols(page []byte) string {
	le := binary.LittleEndian
	n := int(le.Uint16(page[keyColsOffset:]))
	if n < 2 || n > scan.MaxKeyColumns {
		return fmt.Sprintf("a composite key of %d columns", n)
	}
	end := keyColsOffset + 2 + 4*n
	if !AllZero(page[end:CRCOffset]) {
		return "reserved bytes are not zero"
	}
	h.KeyCols = make([]uint32, n)
	seen := map[uint32]bool{}
	for i := range h.KeyCols {
		c := le.Uint32(page[keyColsOffset+2+4*i:])
		if seen[c] || c > keyspec.MaxColumn {
			return fmt.Sprintf("composite key columns %v", h.KeyCols[:i+1])
		}
		seen[c], h.KeyCols[i] = true, c
	}
	if h.KeyCols[0] != h.KeyCol {
		return fmt.Sprintf("key column %d, but the composite key's first is %d", h.KeyCol, h.KeyCols[0])
	}
	return ""
}

// KeyColumns returns the key's columns, in its order: one, or a composite
// key's.
func (h *Header) KeyColumns() []int {
	if h.Flags&FlagComposite == 0 {
		return []int{int(h.KeyCol)}
	}
	cols := make([]int, len(h.KeyCols))
	for i, c := range h.KeyCols {
		cols[i] = int(c)
	}
	return cols
}

// InitScanner makes s a scanner of data for the key h describes: one
// column, or a composite key's.
func (h *Header) InitScanner(s *scan.Scanner, data []byte) error {
	if h.Flags&FlagComposite != 0 {
		return s.InitComposite(data, h.Delim, h.KeyColumns())
	}
	return s.Init(data, h.Delim, int(h.KeyCol))
}

// SetKey records the key of cols in h: its column, or a composite key's
// columns.
func (h *Header) SetKey(cols []int, fields [][]byte) {
	h.KeyCol = uint32(cols[0])
	h.KeyName = keyspec.Name(cols, fields, MaxKeyName)
	h.Flags &^= FlagComposite
	h.KeyCols = nil
	if len(cols) > 1 {
		h.Flags |= FlagComposite
		h.KeyCols = make([]uint32, len(cols))
		for i, c := range cols {
			h.KeyCols[i] = uint32(c)
		}
	}
}

// CompositeColumns returns a composite key's columns, or nil for a key of
// one column.
func (h *Header) CompositeColumns() []int {
	if h.Flags&FlagComposite == 0 {
		return nil
	}
	return h.KeyColumns()
}
