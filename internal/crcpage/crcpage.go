// Package crcpage is the checked page that csvidx's index and fence files
// are made of: 4096 bytes whose last four hold a CRC-32 (IEEE) of the
// first 4092, little-endian, so that any page read alone can be checked.
// The first page of a file, its header, also starts with the magic of the
// file's kind and the version of its format:
//
//	off   size  field
//	0     8     magic (header pages only)
//	8     4     format version (header pages only)
//	...         the kind's own fields (see format/format.go, fence/fence.go)
//	4092  4     CRC-32 (IEEE) of bytes [0, 4092)
//
// A header is checked in that order, magic, then version, then checksum:
// another kind or another version may keep its checksum elsewhere. (CRC-32C
// would be a little faster per page, but Go builds its tables at first use
// for 0.2 ms, a tenth of a csvidx get process.)
package crcpage

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

const (
	// Size is the size of a page.
	Size = 4096
	// SumOffset is where a page's checksum is: its last four bytes.
	SumOffset = Size - 4
	// MagicSize is the size of a header's magic.
	MagicSize = 8
)

// Sum returns the checksum of page, which holds at least Size bytes: the
// CRC-32 (IEEE) of its first SumOffset bytes.
func Sum(page []byte) uint32 { return crc32.ChecksumIEEE(page[:SumOffset]) }

// Seal stores the checksum of page in its last four bytes, and returns it.
func Seal(page []byte) uint32 {
	sum := Sum(page)
	binary.LittleEndian.PutUint32(page[SumOffset:], sum)
	return sum
}

// Intact reports whether the checksum stored in page matches its bytes.
func Intact(page []byte) bool {
	return binary.LittleEndian.Uint32(page[SumOffset:]) == Sum(page)
}

// Stamp writes magic, MagicSize bytes, and version at the start of header,
// the first page of a file of that kind. Seal it once it is filled.
func Stamp(header []byte, magic string, version uint32) {
	copy(header[:MagicSize], magic)
	binary.LittleEndian.PutUint32(header[MagicSize:], version)
}

// Version returns the format version stored in header.
func Version(header []byte) uint32 { return binary.LittleEndian.Uint32(header[MagicSize:]) }

// What Check finds wrong with a header page.
var (
	// ErrMagic means the page does not start with the kind's magic: the
	// file is of another kind.
	ErrMagic = errors.New("wrong magic")
	// ErrVersion means the file is of the kind, in another format version
	// (see Version).
	ErrVersion = errors.New("another format version")
	// ErrChecksum means the page's checksum does not match its bytes.
	ErrChecksum = errors.New("header checksum mismatch")
)

// Check checks header, which holds at least Size bytes, as the first page
// of a file of the kind with magic, in format version: its magic, then its
// version, then its checksum. It returns nil, ErrMagic, ErrVersion or
// ErrChecksum.
func Check(header []byte, magic string, version uint32) error {
	switch {
	case string(header[:MagicSize]) != magic:
		return ErrMagic
	case Version(header) != version:
		return ErrVersion
	case !Intact(header):
		return ErrChecksum
	}
	return nil
}
