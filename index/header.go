package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
)

// header is the decoded header page; the fields are described in format.go.
type header struct {
	version      uint32 // versionFlat (the zero value writes it) or versionDense
	fpBits       uint8  // F, for versionDense: the bits of a key's fingerprint
	offBits      uint8  // W, for versionDense: the bits of a row's offset
	flags        uint32
	delim        byte
	keyCol       uint32
	generation   uint64
	parent       uint64
	base         uint64
	resume       uint64
	scanned      uint64
	headerStart  uint64
	headerEnd    uint64
	records      uint64
	rows         uint64
	shortRows    uint64
	blanks       uint64
	pages        uint64
	headChecksum uint64
	tailChecksum uint64
	keyName      []byte
	keyCols      []uint32 // a composite key's columns (flagComposite), in the key's order; keyCol is the first
}

// encode writes h into page (pageSize bytes, zero on entry) and seals it
// with its CRC.
func (h *header) encode(page []byte) {
	le := binary.LittleEndian
	crcpage.Stamp(page, magic, h.formatVersion())
	le.PutUint32(page[12:], h.flags)
	page[16] = h.delim
	page[17] = quoteChar
	if h.dense() {
		page[18], page[19] = h.fpBits, h.offBits
	}
	le.PutUint32(page[20:], h.keyCol)
	le.PutUint64(page[24:], h.generation)
	le.PutUint64(page[32:], h.parent)
	le.PutUint64(page[40:], h.base)
	le.PutUint64(page[48:], h.resume)
	le.PutUint64(page[56:], h.scanned)
	le.PutUint64(page[64:], h.headerStart)
	le.PutUint64(page[72:], h.headerEnd)
	le.PutUint64(page[80:], h.records)
	le.PutUint64(page[88:], h.rows)
	le.PutUint64(page[96:], h.shortRows)
	le.PutUint64(page[104:], h.blanks)
	le.PutUint64(page[112:], h.pages)
	le.PutUint64(page[120:], h.headChecksum)
	le.PutUint64(page[128:], h.tailChecksum)
	name := h.keyName[:min(len(h.keyName), maxKeyName)]
	le.PutUint16(page[136:], uint16(len(name)))
	copy(page[keyNameOffset:], name)
	if h.flags&flagComposite != 0 {
		le.PutUint16(page[keyColsOffset:], uint16(len(h.keyCols)))
		for i, c := range h.keyCols {
			le.PutUint32(page[keyColsOffset+2+4*i:], c)
		}
	}
	crcpage.Seal(page)
}

// decodeHeader parses and validates a header page: magic, then version, then
// CRC, then every field that must agree with the others. It does not look at
// the record pages.
func decodeHeader(page []byte) (*header, error) {
	le := binary.LittleEndian
	if len(page) < pageSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header page", ErrCorrupt, len(page))
	}
	v := uint32(versionDense) // a version this code does not read is reported as one
	if got := crcpage.Version(page); got == versionFlat {
		v = versionFlat
	}
	switch err := crcpage.Check(page, magic, v); {
	case errors.Is(err, crcpage.ErrMagic):
		return nil, ErrNotIndex
	case errors.Is(err, crcpage.ErrVersion):
		return nil, fmt.Errorf("%w: format version %d, this csvidx reads versions %d and %d", ErrVersion, crcpage.Version(page), versionFlat, versionDense)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err) // header checksum mismatch
	}
	h := &header{
		version:      v,
		flags:        le.Uint32(page[12:]),
		delim:        page[16],
		keyCol:       le.Uint32(page[20:]),
		generation:   le.Uint64(page[24:]),
		parent:       le.Uint64(page[32:]),
		base:         le.Uint64(page[40:]),
		resume:       le.Uint64(page[48:]),
		scanned:      le.Uint64(page[56:]),
		headerStart:  le.Uint64(page[64:]),
		headerEnd:    le.Uint64(page[72:]),
		records:      le.Uint64(page[80:]),
		rows:         le.Uint64(page[88:]),
		shortRows:    le.Uint64(page[96:]),
		blanks:       le.Uint64(page[104:]),
		pages:        le.Uint64(page[112:]),
		headChecksum: le.Uint64(page[120:]),
		tailChecksum: le.Uint64(page[128:]),
	}
	nameLen := int(le.Uint16(page[136:]))
	var problem, dense string
	if v == versionDense {
		dense = h.checkDense(page[18], page[19])
	}
	switch {
	case h.flags&^knownFlags != 0:
		problem = fmt.Sprintf("unknown flags %#x", h.flags)
	case page[17] != quoteChar:
		problem = "bad quote byte"
	case v == versionFlat && (page[18] != 0 || page[19] != 0):
		problem = "reserved bytes are not zero"
	case h.delim == quoteChar || h.delim == '\r' || h.delim == '\n':
		problem = fmt.Sprintf("bad delimiter %q", h.delim)
	case nameLen > maxKeyName:
		problem = fmt.Sprintf("key name of %d bytes", nameLen)
	case nameLen <= maxKeyName && !allZero(page[keyNameOffset+nameLen:keyColsOffset]):
		problem = "reserved bytes are not zero"
	case h.flags&flagComposite == 0 && !allZero(page[keyColsOffset:crcOffset]):
		problem = "reserved bytes are not zero"
	case h.flags&flagComposite != 0:
		problem = h.decodeKeyCols(page)
	case h.scanned > maxOffset || h.pages > maxOffset/pageSize:
		problem = fmt.Sprintf("sizes out of range: %d bytes scanned, %d pages", h.scanned, h.pages)
	case v == versionFlat && h.pages != recordPages(h.records):
		problem = fmt.Sprintf("%d records on %d pages", h.records, h.pages)
	case dense != "":
		problem = dense
	case h.records > h.rows:
		problem = fmt.Sprintf("%d records for %d rows", h.records, h.rows)
	case h.base > h.resume || h.resume > h.scanned:
		problem = fmt.Sprintf("offsets out of order: base %d, resume %d, scanned %d", h.base, h.resume, h.scanned)
	case h.headerStart > h.headerEnd || h.headerEnd > h.scanned:
		problem = fmt.Sprintf("header record [%d, %d) outside the scanned %d bytes", h.headerStart, h.headerEnd, h.scanned)
	}
	if problem != "" {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, problem)
	}
	h.keyName = bytes.Clone(page[keyNameOffset : keyNameOffset+nameLen])
	return h, nil
}

// checkDense sets F and W of a format 2 header and returns what is wrong
// with its fields, or "".
func (h *header) checkDense(fpBits, offBits uint8) string {
	h.fpBits, h.offBits = fpBits, offBits
	switch {
	case h.flags&flagTail != 0:
		return "a tail in format 2" // tails keep the 16-byte records of format 1
	case h.fpBits < minFPBits || h.fpBits > 64 || h.offBits == 0 || h.offBits > 63:
		return fmt.Sprintf("fingerprints of %d bits, offsets of %d", h.fpBits, h.offBits)
	case h.scanned>>h.offBits != 0:
		return fmt.Sprintf("offsets of %d bits for %d bytes scanned", h.offBits, h.scanned)
	case h.pages > h.records || (h.pages == 0) != (h.records == 0):
		return fmt.Sprintf("%d records on %d pages", h.records, h.pages)
	}
	return ""
}

// dense reports whether the file's record pages are format 2's.
func (h *header) dense() bool { return h.version == versionDense }

// formatVersion returns the version the header says.
func (h *header) formatVersion() uint32 {
	if h.dense() {
		return versionDense
	}
	return versionFlat
}

// size returns the length an index file with this header must have.
func (h *header) size() uint64 { return pageSize * (1 + h.pages) }

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeKeyCols reads the columns of a composite key from the header page
// and returns what is wrong with them, or "".
func (h *header) decodeKeyCols(page []byte) string {
	le := binary.LittleEndian
	n := int(le.Uint16(page[keyColsOffset:]))
	if n < 2 || n > scan.MaxKeyColumns {
		return fmt.Sprintf("a composite key of %d columns", n)
	}
	end := keyColsOffset + 2 + 4*n
	if !allZero(page[end:crcOffset]) {
		return "reserved bytes are not zero"
	}
	h.keyCols = make([]uint32, n)
	seen := map[uint32]bool{}
	for i := range h.keyCols {
		c := le.Uint32(page[keyColsOffset+2+4*i:])
		if seen[c] || c > keyspec.MaxColumn {
			return fmt.Sprintf("composite key columns %v", h.keyCols[:i+1])
		}
		seen[c], h.keyCols[i] = true, c
	}
	if h.keyCols[0] != h.keyCol {
		return fmt.Sprintf("key column %d, but the composite key's first is %d", h.keyCol, h.keyCols[0])
	}
	return ""
}

// keyColumns returns the key's columns, in its order: one, or a composite
// key's.
func (h *header) keyColumns() []int {
	if h.flags&flagComposite == 0 {
		return []int{int(h.keyCol)}
	}
	cols := make([]int, len(h.keyCols))
	for i, c := range h.keyCols {
		cols[i] = int(c)
	}
	return cols
}
