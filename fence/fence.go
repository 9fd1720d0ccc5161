// Package fence reads and writes fence files: the first hash of every record
// page of a csvidx main index, so that a lookup can find the one index page
// it needs by searching a small file instead of the index itself.
//
// # Fence format (version 2)
//
// All integers little-endian. A 4096-byte header page (a checked page, as
// internal/crcpage keeps it, as the index's pages are), then one entry per
// record page of the main index:
//
//	off   size  field
//	0     8     magic "\x89csvfnc\n"
//	8     4     version = 2
//	12    4     S: summary entries
//	16    8     generation of the main index it belongs to
//	24    8     entries: n, the main index's record pages
//	32    8     XXH3-64 of the entries
//	40    4·S   summary: entry i is the top 32 bits of entry i·g
//	...         zero
//	4092  4     CRC-32 (IEEE) of bytes [0, 4092)
//	4096  8·n   entry j: the hash of the first record of record page j
//
// The summary samples every g-th entry, g a whole number of 4 KiB pages of
// entries, the fewest that keep S at most 1000: g = 512·ceil(ceil(n/512)/1000),
// S = ceil(n/g). Up to 512,000 index pages (130M records) it samples the
// first entry of every page of the fence. The summary is kept in memory
// once the fence is open, so that a lookup reads the one fence page its key
// falls in, where an interpolation over the entries alone reads two on
// average when heavy keys skew the hashes' spread.
//
// A fence can never change a lookup's result: a missing file, a bad header,
// another index's generation or a wrong size make lookups use the ordinary
// search, and a lookup checks that the index page the fence pointed to
// really brackets the key (a corrupted entry costs the ordinary search, not
// a wrong answer). The entries' checksum is not checked at open, which would
// read the whole file; [Fence.Verify] checks it, and the summary against the
// entries.
package fence

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/interp"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
)

const (
	headerSize = crcpage.Size           // bytes before the first entry: one checked page
	entrySize  = 8                      // bytes per entry
	version    = 2                      // the format above
	magic      = "\x89csvfnc\n"         // first bytes of every fence file
	crcOffset  = crcpage.SumOffset      // the header's CRC
	perPage    = headerSize / entrySize // entries in a 4 KiB page of the file
	summaryAt  = 40                     // offset of the summary in the header
	maxSummary = 1000                   // summary entries, at most
)

// sampling returns the summary's layout for n entries: every g-th entry is
// sampled, s of them.
func sampling(n uint64) (g, s uint64) {
	pages := (n + perPage - 1) / perPage
	g = perPage * max(1, (pages+maxSummary-1)/maxSummary)
	return g, (n + g - 1) / g
}

// Magic is the first bytes of every fence file.
const Magic = magic

// ErrUnusable means a fence file cannot be used: it is missing, broken, or
// belongs to another index. Lookups then search the index itself.
var ErrUnusable = errors.New("fence unusable")

// A Stream computes a fence from its entries, taken one at a time as an
// index is written, keeping only what the header needs (a running checksum
// and one sample per page of entries): a fence is written in fixed memory
// however large its index. The zero value is ready to use.
type Stream struct {
	n       uint64
	sum     *xxh3.Hasher
	samples []uint32 // the top 32 bits of every perPage-th entry
	entry   [entrySize]byte
}

// Add takes the next entry, the first hash of the next record page, and
// returns its bytes in the file; they are valid until the next call.
func (s *Stream) Add(first uint64) []byte {
	if s.sum == nil {
		s.sum = xxh3.New()
	}
	if s.n%perPage == 0 {
		s.samples = append(s.samples, uint32(first>>32))
	}
	s.n++
	binary.LittleEndian.PutUint64(s.entry[:], first)
	s.sum.Write(s.entry[:]) // a Hasher's Write never fails
	return s.entry[:]
}

// Entries returns the number of entries taken.
func (s *Stream) Entries() uint64 { return s.n }

// Header returns the header page of the fence of the entries taken, for the
// main index with generation gen.
func (s *Stream) Header(gen uint64) []byte {
	b := make([]byte, headerSize)
	le := binary.LittleEndian
	g, n := sampling(s.n)
	for i := range n {
		le.PutUint32(b[summaryAt+4*i:], s.samples[i*g/perPage])
	}
	sum := xxh3.Hash(nil)
	if s.sum != nil {
		sum = s.sum.Sum64()
	}
	crcpage.Stamp(b, magic, version)
	le.PutUint32(b[12:], uint32(n))
	le.PutUint64(b[16:], gen)
	le.PutUint64(b[24:], s.n)
	le.PutUint64(b[32:], sum)
	crcpage.Seal(b)
	return b
}

// A Writer writes a fence file as its index is written, entry by entry, in
// fixed memory, and puts it in place atomically.
type Writer struct {
	f *atomicfile.File
	w *bufio.Writer
	s Stream
}

// Create starts the fence file at path: a temporary file until Commit,
// created with the permission bits perm (less the umask).
func Create(path string, perm fs.FileMode) (*Writer, error) {
	f, err := atomicfile.Create(path, false, perm)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	w.w.Write(make([]byte, headerSize)) // the header's place, written last
	return w, nil
}

// Add writes the next entry, the first hash of the next record page.
func (w *Writer) Add(first uint64) error {
	_, err := w.w.Write(w.s.Add(first))
	return err
}

// Commit writes the header, for the main index with generation gen, and
// puts the file in place, durably.
func (w *Writer) Commit(gen uint64) error {
	if err := w.w.Flush(); err != nil {
		w.f.Abort()
		return err
	}
	if _, err := w.f.WriteAt(w.s.Header(gen), 0); err != nil {
		w.f.Abort()
		return err
	}
	return w.f.Commit()
}

// Abort removes the temporary file. After Commit it does nothing, so it can
// be deferred.
func (w *Writer) Abort() error { return w.f.Abort() }

// Write writes the fence of the main index with generation gen, whose
// record pages start with firstHashes, to path, atomically, with the
// permission bits perm.
func Write(path string, gen uint64, firstHashes []uint64, perm fs.FileMode) error {
	w, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer w.Abort()
	for _, h := range firstHashes {
		if err := w.Add(h); err != nil {
			return err
		}
	}
	return w.Commit(gen)
}

// Fence is an open fence file.
type Fence struct {
	m       *mapping.Map
	entries []byte
	n       uint64
	summary []uint32 // a copy of the header's summary
	group   uint64   // entries per summary entry
}

// Open maps the fence at path if it belongs to the main index with
// generation gen and pages record pages. It returns an error wrapping
// ErrUnusable when it does not, or is missing or broken.
func Open(path string, gen, pages uint64) (*Fence, error) {
	f, st, err := mapping.Open(path)
	if err != nil { // fs.ErrNotExist among others
		return nil, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	defer f.Close()
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
	fc := &Fence{m: m, entries: m.Bytes()[headerSize:], n: pages}
	g, n := sampling(pages)
	fc.group, fc.summary = g, make([]uint32, n)
	err = mapping.Guard(func() error {
		for i := range fc.summary {
			fc.summary[i] = binary.LittleEndian.Uint32(m.Bytes()[summaryAt+4*i:])
		}
		return nil
	}, m)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrUnusable, path, err)
	}
	return fc, nil
}

// checkHeader validates a fence's header page for the index with generation
// gen and pages record pages.
func checkHeader(b []byte, gen, pages uint64) error {
	le := binary.LittleEndian
	_, n := sampling(pages)
	switch err := crcpage.Check(b, magic, version); {
	case errors.Is(err, crcpage.ErrMagic):
		return errors.New("not a fence file")
	case errors.Is(err, crcpage.ErrVersion):
		return fmt.Errorf("fence version %d", crcpage.Version(b))
	case err != nil:
		return err // header checksum mismatch
	}
	switch {
	case le.Uint64(b[16:]) != gen:
		return errors.New("it belongs to another index")
	case le.Uint64(b[24:]) != pages:
		return fmt.Errorf("%d entries for %d pages", le.Uint64(b[24:]), pages)
	case uint64(le.Uint32(b[12:])) != n:
		return fmt.Errorf("%d summary entries for %d pages, want %d", le.Uint32(b[12:]), pages, n)
	}
	for _, c := range b[summaryAt+4*n : crcOffset] {
		if c != 0 {
			return errors.New("reserved bytes are not zero")
		}
	}
	return nil
}

// Generation returns the generation of the main index that the fence file
// b belongs to, and false when b has no intact fence header: one with the
// magic, this version and a matching checksum.
func Generation(b []byte) (uint64, bool) {
	if len(b) < headerSize || crcpage.Check(b, magic, version) != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[16:]), true
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
// of that page is below h. The summary narrows the search to the entries
// between two samples (one page of the fence up to 130M records), which are
// then searched by interpolation: one page of the fence is read.
func (f *Fence) Find(h uint64) uint64 {
	lo, hi := uint64(0), f.n
	if t := uint32(h >> 32); len(f.summary) > 0 {
		// Samples below t are below h; samples above t are above it. (Equal
		// top bits say nothing: such samples stay inside the range.)
		i, _ := slices.BinarySearch(f.summary, t) // the first sample >= t
		j := i
		for j < len(f.summary) && f.summary[j] == t {
			j++
		}
		if i > 0 {
			lo = uint64(i-1) * f.group
		}
		if j < len(f.summary) {
			hi = uint64(j) * f.group
		}
	}
	i := lo + interp.LowerBound(hi-lo, perPage, h, func(k uint64) uint64 { return f.Entry(lo + k) })
	if i > 0 {
		return i - 1
	}
	return 0
}

// Verify checks the entries against the header's checksum, and the summary
// against the entries.
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
	for i, v := range f.summary {
		if e := f.Entry(uint64(i) * f.group); v != uint32(e>>32) {
			return fmt.Errorf("fence summary entry %d is %#x, the entry it samples %#x", i, v, e)
		}
	}
	return nil
}
