package source

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Compressed input is told by its first bytes, whatever the file's name, so
// that a .gz file (or a .csv that holds gzip) is refused as what it is,
// before its bytes are read as a CSV: as one, they gave a false diagnosis
// (lone carriage returns) or a header of binary noise. Open reads the
// formats whose backends are registered (see Register); package source
// itself reads plain CSV only, and tells the formats without decoding any.

// CompressedError means the CSV is compressed data, or a zip archive: its
// first bytes are a compressed format's magic.
type CompressedError struct {
	// Path is the file, or for a stream what it is ("the left file").
	Path string
	// Stream says the input is read as a stream (join's LEFT), not by path.
	Stream bool
	// Format is "gzip" (BGZF too), "zstd", "xz", "bzip2" or "zip".
	Format string
	// BGZF says the gzip data is BGZF (bgzip's): its first member's header
	// holds the 'BC' subfield that gives the member's size, so that
	// members can be found and inflated alone. Told from the header, as
	// package compressed's IsBGZF tells it, without inflating anything;
	// false for a stream (join's LEFT).
	BGZF bool
}

func (e *CompressedError) Error() string {
	return fmt.Sprintf("%s is %s, and csvidx reads plain CSV: decompress it first", e.Path, e.What())
}

// What says what the input is: "gzip-compressed", "gzip-compressed
// (BGZF)", or "a zip archive".
func (e *CompressedError) What() string {
	switch {
	case e.Format == "zip":
		return "a zip archive"
	case e.BGZF:
		return "gzip-compressed (BGZF)"
	}
	return e.Format + "-compressed"
}

// The magic numbers of the formats csvidx tells: the first bytes of a
// file in that format.
var (
	gzipMagic = []byte{0x1f, 0x8b, 0x08}               // RFC 1952, with deflate, its one method (BGZF too)
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}         // RFC 8878: a frame
	skipMagic = []byte{0x2a, 0x4d, 0x18}               // RFC 8878: a skippable frame (pzstd's first), after 0x5X
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00} // xz file format 1.1
	bzipMagic = []byte("BZh")                          // then the level, '1' to '9', then a block or the end
	bzipBlock = []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}
	bzipEnd   = []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90} // an empty stream
	zipMagics = [][]byte{
		{'P', 'K', 0x03, 0x04}, // a local file header
		{'P', 'K', 0x05, 0x06}, // the end of the central directory: an empty archive
		{'P', 'K', 0x07, 0x08}, // a spanned archive
	}
)

// magicLen is the most bytes compression looks at.
const magicLen = 10

// Compression returns the compressed format data starts with, or "" for
// none. bzip2's "BZh" is also text, so a level digit and the magic of a
// block (or of the end of an empty stream) must follow it.
func Compression(data []byte) string {
	switch {
	case bytes.HasPrefix(data, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(data, zstdMagic), len(data) >= 4 && data[0]&0xf0 == 0x50 && bytes.Equal(data[1:4], skipMagic):
		return "zstd"
	case bytes.HasPrefix(data, xzMagic):
		return "xz"
	case len(data) >= 10 && bytes.HasPrefix(data, bzipMagic) && data[3] >= '1' && data[3] <= '9' &&
		(bytes.Equal(data[4:10], bzipBlock) || bytes.Equal(data[4:10], bzipEnd)):
		return "bzip2"
	}
	for _, m := range zipMagics {
		if bytes.HasPrefix(data, m) {
			return "zip"
		}
	}
	return ""
}

// isBGZF reports whether head, a gzip file's first bytes, is a BGZF
// member's header (the SAM/BAM specification, section 4.1): gzip with
// deflate and an extra field (FEXTRA) that holds a 'BC' subfield of
// length 2, whose value (the member's size less one) leaves room for the
// header and the trailer. The extra field must be whole in head. It is
// package compressed's IsBGZF, without its decoder, for the messages of a
// program that does not link one.
func isBGZF(head []byte) bool {
	if len(head) < 12 || !bytes.HasPrefix(head, gzipMagic) || head[3]&4 == 0 {
		return false
	}
	xlen := int(binary.LittleEndian.Uint16(head[10:]))
	if len(head) < 12+xlen {
		return false
	}
	for x := head[12 : 12+xlen]; len(x) >= 4; {
		n := int(binary.LittleEndian.Uint16(x[2:]))
		if len(x) < 4+n {
			return false
		}
		if x[0] == 'B' && x[1] == 'C' && n == 2 {
			const trailer = 8 // CRC-32 and ISIZE
			return int(binary.LittleEndian.Uint16(x[4:]))+1 >= 12+xlen+trailer
		}
		x = x[4+n:]
	}
	return false
}
