// Package fence reads and writes fence files: the first hash of every record
// page of a csvidx main index, so that a lookup can find the one index page
// it needs by searching a small file instead of the index itself.
//
// # Fence format (version 1)
//
// All integers little-endian. A 4096-byte header page, then one entry per
// record page of the main index:
//
//	off   size  field
//	0     8     magic "\x89csvfnc\n"
//	8     4     version = 1
//	12    4     zero
//	16    8     generation of the main index it belongs to
//	24    8     entries: the main index's record pages
//	32    8     XXH3-64 of the entries
//	...         zero
//	4092  4     CRC-32 (IEEE) of bytes [0, 4092)
//	4096  8·n   entry j: the hash of the first record of record page j
//
// A fence can never change a lookup's result: a missing file, a bad header,
// another index's generation or a wrong size make lookups use the ordinary
// search, and a lookup checks that the index page the fence pointed to
// really brackets the key (a corrupted entry costs the ordinary search, not
// a wrong answer). The entries' checksum is not checked at open, which would
// read the whole file; [Fence.Verify] checks it.
package fence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"

	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/interp"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
)

const (
	headerSize = 4096           // bytes before the first entry
	entrySize  = 8              // bytes per entry
	version    = 1              // the format above
	magic      = "\x89csvfnc\n" // first bytes of every fence file
	crcOffset  = headerSize - 4
	perPage    = headerSize / entrySize // entries in a 4 KiB page of the file
)

// ErrUnusable means a fence file cannot be used: it is missing, broken, or
// belongs to another index. Lookups then search the index itself.
var ErrUnusable = errors.New("fence unusable")

// Encode returns the bytes of the fence of the main index with generation
// gen whose record pages start with firstHashes.
func Encode(gen uint64, firstHashes []uint64) []byte {
	b := make([]byte, headerSize+entrySize*len(firstHashes))
	le := binary.LittleEndian
	for j, h := range firstHashes {
		le.PutUint64(b[headerSize+entrySize*j:], h)
	}
	copy(b, magic)
	le.PutUint32(b[8:], version)
	le.PutUint64(b[16:], gen)
	le.PutUint64(b[24:], uint64(len(firstHashes)))
	le.PutUint64(b[32:], xxh3.Hash(b[headerSize:]))
	le.PutUint32(b[crcOffset:], crc32.ChecksumIEEE(b[:crcOffset]))
	return b
}

// Write writes the fence of the main index with generation gen to path,
// atomically.
func Write(path string, gen uint64, firstHashes []uint64) error {
	f, err := atomicfile.Create(path, false)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(Encode(gen, firstHashes)); err != nil {
		return err
	}
	return f.Commit()
}

// Fence is an open fence file.
type Fence struct {
	m       *mapping.Map
	entries []byte
	n       uint64
}

// Open maps the fence at path if it belongs to the main index with
// generation gen and pages record pages. It returns an error wrapping
// ErrUnusable when it does not, or is missing or broken.
func Open(path string, gen, pages uint64) (*Fence, error) {
	f, err := mapping.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrUnusable, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	if st.Size() != headerSize+entrySize*int64(pages) {
		return nil, fmt.Errorf("%w: %s is %d bytes, want %d for %d pages", ErrUnusable, path, st.Size(), headerSize+entrySize*int64(pages), pages)
	}
	m, err := mapping.File(f, st.Size(), mapping.Random)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	var problem error
	err = mapping.Guard(func() error {
		problem = checkHeader(m.Bytes(), gen, pages)
		return nil
	}, m)
	if err == nil {
		err = problem
	}
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrUnusable, path, err)
	}
	return &Fence{m: m, entries: m.Bytes()[headerSize:], n: pages}, nil
}

// checkHeader validates a fence's header page for the index with generation
// gen and pages record pages.
func checkHeader(b []byte, gen, pages uint64) error {
	le := binary.LittleEndian
	switch {
	case string(b[:8]) != magic:
		return errors.New("not a fence file")
	case le.Uint32(b[8:]) != version:
		return fmt.Errorf("fence version %d", le.Uint32(b[8:]))
	case le.Uint32(b[crcOffset:]) != crc32.ChecksumIEEE(b[:crcOffset]):
		return errors.New("header checksum mismatch")
	case le.Uint64(b[16:]) != gen:
		return errors.New("it belongs to another index")
	case le.Uint64(b[24:]) != pages:
		return fmt.Errorf("%d entries for %d pages", le.Uint64(b[24:]), pages)
	}
	for _, c := range b[40:crcOffset] {
		if c != 0 {
			return errors.New("reserved bytes are not zero")
		}
	}
	if le.Uint32(b[12:]) != 0 {
		return errors.New("reserved bytes are not zero")
	}
	return nil
}

// Generation returns the generation of the main index that the fence file
// b belongs to, and false when b has no intact fence header: one with the
// magic, this version and a matching checksum.
func Generation(b []byte) (uint64, bool) {
	le := binary.LittleEndian
	if len(b) < headerSize || string(b[:8]) != magic || le.Uint32(b[8:]) != version ||
		le.Uint32(b[crcOffset:]) != crc32.ChecksumIEEE(b[:crcOffset]) {
		return 0, false
	}
	return le.Uint64(b[16:]), true
}

// Close unmaps the fence. A nil *Fence is fine to close.
func (f *Fence) Close() error {
	if f == nil {
		return nil
	}
	return f.m.Close()
}

// Map returns the fence's mapping, for guarding reads of it.
func (f *Fence) Map() *mapping.Map { return f.m }

// Pages returns the number of index pages the fence covers.
func (f *Fence) Pages() uint64 { return f.n }

// Entry returns the first hash of index page j.
func (f *Fence) Entry(j uint64) uint64 {
	return binary.LittleEndian.Uint64(f.entries[entrySize*j:])
}

// Find returns the index page where the first record whose hash is h or
// more should be: the last page whose first hash is below h, or 0. The
// answer may also be the first record of the next page, when every record
// of that page is below h. It searches the entries by interpolation, probing
// whole 4 KiB pages of the fence: two or three for a 100M-row index, where a
// binary search reads ten.
func (f *Fence) Find(h uint64) uint64 {
	if i := interp.LowerBound(f.n, perPage, h, f.Entry); i > 0 {
		return i - 1
	}
	return 0
}

// Verify checks the entries against the header's checksum.
func (f *Fence) Verify() error {
	var sum uint64
	err := mapping.Guard(func() error {
		sum = xxh3.Hash(f.entries[:entrySize*f.n])
		return nil
	}, f.m)
	if err != nil {
		return err
	}
	if want := binary.LittleEndian.Uint64(f.m.Bytes()[32:]); sum != want {
		return errors.New("fence entries do not match their checksum")
	}
	return nil
}
