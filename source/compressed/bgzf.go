package compressed

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// BGZF (the SAM/BAM specification, section 4.1) is gzip cut into members
// of at most 64 KiB of input, each saying its own compressed size in an
// extra field: bgzip writes it, and any gunzip reads it as one stream.
// Since every member starts a fresh deflate stream, a member can be found
// and inflated alone: the plain bytes at any offset cost one member's
// inflate, and a scan inflates members on every core.
//
// A member:
//
//	off  size  field
//	0    4     1f 8b 08 04: gzip, deflate, FEXTRA set
//	4    6     mtime, XFL, OS
//	10   2     XLEN, the extra field's length
//	12   XLEN  subfields; one is 'B' 'C', length 2, BSIZE: the member's size less one
//	...        CDATA, the deflate stream
//	-8   4     CRC-32 of the plain bytes
//	-4   4     ISIZE, the plain bytes' length (at most 65536)
//
// The file ends with an empty member (28 bytes), which bgzip writes as an
// end marker; a file without one is whole too, as far as its members go.
const (
	bgzfHeaderLen = 18 // the fixed part and the 'BC' subfield, as bgzip writes it
	bgzfMaxBlock  = 1 << 16
	bgzfTrailer   = 8
)

// A Block is where a compressed member starts in the file (Comp) and where
// its plain bytes start in the plain stream (Plain).
type Block struct {
	Comp, Plain int64
}

// IsBGZF reports whether head, a file's first bytes (18 at least), is a
// BGZF member's header: gzip with an extra field that holds a 'BC'
// subfield of length 2.
func IsBGZF(head []byte) bool {
	_, err := bgzfBlockSize(head)
	return err == nil
}

// errNotBGZF means a member's header is not BGZF's.
var errNotBGZF = errors.New("not a BGZF block header")

// bgzfBlockSize returns the size of the member whose header starts h: its
// BSIZE plus one, from the 'BC' subfield of its extra field, which h must
// hold whole.
func bgzfBlockSize(h []byte) (int, error) {
	if len(h) < 12 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3]&4 == 0 {
		return 0, errNotBGZF
	}
	xlen := int(binary.LittleEndian.Uint16(h[10:]))
	if len(h) < 12+xlen {
		return 0, errNotBGZF
	}
	for x := h[12 : 12+xlen]; len(x) >= 4; {
		n := int(binary.LittleEndian.Uint16(x[2:]))
		if len(x) < 4+n {
			break
		}
		if x[0] == 'B' && x[1] == 'C' && n == 2 {
			size := int(binary.LittleEndian.Uint16(x[4:])) + 1
			if size < 12+xlen+bgzfTrailer {
				return 0, errNotBGZF
			}
			return size, nil
		}
		x = x[4+n:]
	}
	return 0, errNotBGZF
}

// CorruptError means compressed data does not decode: a damaged or
// truncated file, or one that is not what its first bytes say.
type CorruptError struct {
	Path   string
	Offset int64 // the compressed byte where the damage was found
	Why    string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s is damaged at compressed byte %d: %s", e.Path, e.Offset, e.Why)
}

// ScanBGZF walks the members of the BGZF file r of size bytes, reading
// each one's header and ISIZE only, and returns where each starts, with a
// last Block holding the file's size and the plain stream's: the table a
// BGZF source reads through. Members that hold no plain bytes (the end
// marker) are left out.
func ScanBGZF(r io.ReaderAt, size int64, path string) ([]Block, error) {
	return scanBGZF(r, Block{}, size, path)
}

// scanBGZF walks the members of the BGZF file r of size bytes from
// from.Comp on, where a member must start, and returns their table (see
// ScanBGZF), with plain offsets from from.Plain on.
func scanBGZF(r io.ReaderAt, from Block, size int64, path string) ([]Block, error) {
	var blocks []Block
	plain := from.Plain
	head := make([]byte, 12+bgzfMaxBlock) // a header's extra field is at most 64 KiB
	for off := from.Comp; off < size; {
		n, err := r.ReadAt(head[:min(int64(bgzfHeaderLen), size-off)], off)
		if err != nil && err != io.EOF {
			return nil, err
		}
		h := head[:n]
		if n >= 12 {
			if xlen := int(binary.LittleEndian.Uint16(h[10:])); 12+xlen > n && off+12+int64(xlen) <= size {
				if n, err = r.ReadAt(head[:12+xlen], off); err != nil {
					return nil, err
				}
				h = head[:n]
			}
		}
		bsize, err := bgzfBlockSize(h)
		if err != nil {
			return nil, &CorruptError{path, off, "not a BGZF block"}
		}
		if off+int64(bsize) > size {
			return nil, &CorruptError{path, off, "the file ends inside a block"}
		}
		var isize [4]byte
		if _, err := r.ReadAt(isize[:], off+int64(bsize)-4); err != nil {
			return nil, err
		}
		n32 := binary.LittleEndian.Uint32(isize[:])
		if n32 > bgzfMaxBlock {
			return nil, &CorruptError{path, off, fmt.Sprintf("a block of %d plain bytes, more than BGZF's 65536", n32)}
		}
		if n32 > 0 {
			blocks = append(blocks, Block{off, plain})
			plain += int64(n32)
		}
		off += int64(bsize)
	}
	return append(blocks, Block{size, plain}), nil
}

// blockAt returns the index in blocks (a table with its end, see
// ScanBGZF) of the block that holds plain offset off, which must be in
// [0, the plain size).
func blockAt(blocks []Block, off int64) int {
	return sort.Search(len(blocks)-1, func(i int) bool { return blocks[i+1].Plain > off })
}

// trailerOf returns a member's CRC-32 and ISIZE.
func trailerOf(b []byte) (crc, isize uint32) {
	t := b[len(b)-bgzfTrailer:]
	return binary.LittleEndian.Uint32(t), binary.LittleEndian.Uint32(t[4:])
}

// bgzfEOF is the empty member bgzip ends a file with.
var bgzfEOF = []byte{0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, 0x06, 0, 'B', 'C', 0x02, 0, 0x1b, 0, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0}

// HasBGZFEnd reports whether tail, a file's last bytes, is BGZF's end
// marker.
func HasBGZFEnd(tail []byte) bool { return bytes.HasSuffix(tail, bgzfEOF) }
