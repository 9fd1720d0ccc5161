package crcpage

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// TestSeal: the checksum is the CRC-32 (IEEE) of the first 4092 bytes,
// stored little-endian in the last four; a flip anywhere before it breaks
// it, and the checksum's own bytes are not part of it.
func TestSeal(t *testing.T) {
	page := make([]byte, Size)
	for i := range page {
		page[i] = byte(i * 7)
	}
	sum := Seal(page)
	if want := crc32.ChecksumIEEE(page[:Size-4]); sum != want || binary.LittleEndian.Uint32(page[Size-4:]) != want {
		t.Fatalf("Seal = %#x, stored %#x; want %#x", sum, binary.LittleEndian.Uint32(page[Size-4:]), want)
	}
	if !Intact(page) || Sum(page) != sum {
		t.Fatal("a sealed page is not intact")
	}
	for _, off := range []int{0, 100, Size - 5} {
		bad := bytes.Clone(page)
		bad[off] ^= 1
		if Intact(bad) {
			t.Errorf("a flip at byte %d went unseen", off)
		}
	}
}

// TestCheck: a header is checked for its magic, then its version, then
// its checksum, each fault its own error.
func TestCheck(t *testing.T) {
	const magic = "\x89testmg\n"
	good := make([]byte, Size)
	Stamp(good, magic, 3)
	good[20] = 42
	Seal(good)
	if string(good[:8]) != magic || binary.LittleEndian.Uint32(good[8:]) != 3 || Version(good) != 3 {
		t.Fatalf("Stamp wrote % x", good[:12])
	}
	cases := []struct {
		name string
		edit func(p []byte)
		want error
	}{
		{"Intact", func(p []byte) {}, nil},
		{"Magic", func(p []byte) { p[1] = 'X'; Seal(p) }, ErrMagic},
		{"MagicBeforeVersion", func(p []byte) { p[1] = 'X'; p[8] = 9 }, ErrMagic},
		{"Version", func(p []byte) { p[8] = 4; Seal(p) }, ErrVersion},
		{"VersionBeforeChecksum", func(p []byte) { p[8] = 4 }, ErrVersion},
		{"Checksum", func(p []byte) { p[20] = 43 }, ErrChecksum},
		{"ChecksumItself", func(p []byte) { p[Size-1] ^= 0x80 }, ErrChecksum},
	}
	for _, c := range cases {
		p := bytes.Clone(good)
		c.edit(p)
		if got := Check(p, magic, 3); got != c.want {
			t.Errorf("%s: Check = %v, want %v", c.name, got, c.want)
		}
	}
}
