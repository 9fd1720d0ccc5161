package compressed

import (
	"encoding/binary"
	"fmt"

	"github.com/csvidx/csvidx/source"
)

// A frame table (a []Block with its end, see ScanBGZF) is kept in an index
// as the differences between one Block and the next, Comp then Plain, each
// an unsigned varint, after the first Block's (0, 0), which is implied:
// 5 or 6 bytes per 64 KiB frame (0.004 to 0.005 bytes per row of a
// 2M-row orders CSV, scripts/compressed).

// EncodeTable returns the encoding of blocks, a table with its end.
func EncodeTable(blocks []Block) []byte {
	b := make([]byte, 0, 6*len(blocks))
	prev := Block{}
	for _, bl := range blocks {
		b = binary.AppendUvarint(b, uint64(bl.Comp-prev.Comp))
		b = binary.AppendUvarint(b, uint64(bl.Plain-prev.Plain))
		prev = bl
	}
	return b
}

// errTable means an encoded table does not decode to a table.
var errTable = fmt.Errorf("%w: not a frame table", source.ErrTable)

// DecodeTable returns the table b encodes (see EncodeTable): Blocks whose
// Comp and Plain both ascend, the first at (0, 0) unless the file starts
// with frames of no plain bytes, every frame but the end holding plain
// bytes, and at least the end.
func DecodeTable(b []byte) ([]Block, error) {
	var blocks []Block
	var at Block
	for len(b) > 0 {
		dc, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errTable
		}
		dp, m := binary.Uvarint(b[n:])
		if m <= 0 {
			return nil, errTable
		}
		b = b[n+m:]
		if dc > 1<<62 || dp > 1<<62 || at.Comp > 1<<62-int64(dc) || at.Plain > 1<<62-int64(dp) {
			return nil, fmt.Errorf("%w: offsets out of range", errTable)
		}
		if len(blocks) > 0 && (dc == 0 || dp == 0) {
			return nil, fmt.Errorf("%w: a frame of no bytes", errTable)
		}
		at = Block{at.Comp + int64(dc), at.Plain + int64(dp)}
		if len(blocks) == 0 && at.Plain != 0 {
			return nil, fmt.Errorf("%w: the first frame's plain bytes start at %d", errTable, at.Plain)
		}
		blocks = append(blocks, at)
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%w: no end", errTable)
	}
	return blocks, nil
}
