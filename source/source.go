package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/csvidx/csvidx/internal/mapping"
)

// A Source is the bytes of a CSV, uncompressed, by offset: what every
// reader and writer of an index reads the CSV through. A local file is
// one (File); a compressed file and a remote object are to come, each a
// Source whose ReadAt serves the offsets of the CSV's plain bytes.
//
// A Source is a version of the CSV fixed at opening: Size and Identity
// are as of then, and Current tells whether the CSV is still that version.
// Its methods are safe for concurrent use, but Close.
type Source interface {
	// Name returns the path or URL the source was opened by.
	Name() string
	// Size returns how many bytes the CSV holds, as of opening.
	Size() int64
	// ReadAt reads len(p) bytes from offset off, as io.ReaderAt does
	// (fewer only with an error; io.EOF past Size), giving up at ctx's
	// cancellation where the reading may wait (a remote source).
	ReadAt(ctx context.Context, p []byte, off int64) (int, error)
	// Identity returns what tells this version of the CSV from another,
	// as of opening.
	Identity() Identity
	// Current returns the identity of the CSV now.
	Current() (Identity, error)
	// Splits returns cut points in [0, Size), ascending and starting at 0,
	// about target bytes apart, where reading from the cut costs no more
	// than reading from any other offset near it: anywhere in a plain
	// file, a block's or a frame's start in a compressed one. A scan of
	// several workers cuts the CSV there (records are found from a cut by
	// guessing; see package chunked).
	Splits(target int64) []int64
	// Close releases the source.
	Close() error
}

// Mapped is a Source whose bytes are mapped in memory whole: a local
// plain file, read zero-copy. The fast paths of lookups and scans use it.
type Mapped interface {
	Source
	// Bytes returns the mapped bytes, as of opening; nil once released.
	// Read them inside Guard.
	Bytes() []byte
	// Map returns the mapping, for advice to the kernel and for guards
	// that span several mappings.
	Map() *mapping.Map
	// Guard runs fn, which reads Bytes, turning a fault on them (the file
	// shrank meanwhile) into an error wrapping ErrChanged.
	Guard(fn func() error) error
	// Release unmaps the bytes early, for a reader that needs no more of
	// them; Close waits for the unmapping.
	Release()
	// Stat returns what the file is now.
	Stat() (fs.FileInfo, error)
}

// Tabled is a Source read through a backend's table of its file (where
// each frame starts in the file and in the plain bytes): an index keeps
// the table, and the file's size and ends on disk, so that the source can
// be opened again without walking the file (OpenTable), and told from
// another version of it.
type Tabled interface {
	Source
	// Backend returns the name of the backend that reads the file.
	Backend() string
	// Table returns the backend's encoding of its table of the file.
	Table() []byte
	// Covered returns how many bytes of the file on disk the table
	// covers: the file's size when the table was made.
	Covered() int64
	// FileAt reads the file's own bytes on disk (compressed), as
	// io.ReaderAt does, as of now: an index checks the ends of what its
	// table covers against them.
	FileAt(p []byte, off int64) (int, error)
	// Cut returns the table of the file as it was when it was its first
	// covered bytes, whose plain bytes ended at plain: ok is false unless
	// a frame (a member) ends at plain, and covered lies between that
	// frame's start and the next one's. The verify of an index of a file
	// since appended to compares the index with this.
	Cut(plain, covered int64) (table []byte, ok bool)
}

// A Walking source is one whose table is made as it is read from front to
// back (see Backend.Walk): its size is known only once the walk reached
// the file's end. Size, and the Tabled methods a Walking source has, wait
// for that; Known does not. Its reads are meant to go front to back, a
// little behind the walk, which waits for them: a read of bytes the walk
// has passed and no longer keeps waits for the walk's end.
type Walking interface {
	Source
	// Known returns the size once the walk has reached the end; ok is
	// false before, or when the walk failed (reads then return its error).
	Known() (size int64, ok bool)
}

// A Prefetcher is a Source that can make reads at given offsets cheaper
// ahead of them: a compressed one decodes their frames on all cores at
// once. A lookup that knows its rows' offsets asks for them first.
type Prefetcher interface {
	Prefetch(offs []int64)
}

// A Scanned source reads faster when told that it is about to be read
// whole, front to back, in windows of megabytes (a build's scan): a
// remote object then reads them ahead, from the first.
type Scanned interface {
	WillScan()
}

// A SelfChecked source checks, when it first reads each of its files,
// that the file is the version the source was opened as (a Concat's
// opener checks each part): the freshness of an index of it is judged by
// its size, not by hashing its ends, which would open every part they
// span.
type SelfChecked interface {
	ChecksItsFiles()
}

// ErrTable means that a backend's table of a file, which an index keeps,
// does not decode: the index was written by another version of csvidx,
// or is damaged past its pages' checksums. The index is to be built
// again.
var ErrTable = errors.New("the index's table of the compressed file does not decode")

// OpenTable opens the file at name through the registered backend named
// backend, with table, its table of the file as Tabled.Table gave it, so
// that the backend need not walk the file. The file may have changed
// since the table was made: the caller checks its size and ends first.
// Without that backend, it is Open's error for the file.
func OpenTable(name, backend string, table []byte) (Source, error) {
	b, ok := backendNamed(backend)
	if !ok {
		src, err := Open(name, mapping.Random)
		if err == nil {
			src.Close()
			err = fmt.Errorf("%s: read by the backend %q, which this program lacks", name, backend)
		}
		return nil, err
	}
	if b.OpenTable == nil {
		return b.Open(name)
	}
	return b.OpenTable(name, table)
}

// OpenExtended opens the file at name through the registered backend named
// backend, with table, a table of a prefix of the file that Tabled.Table
// gave when the file was that prefix, walking only what was appended
// since (see Backend.Extend). A backend without Extend walks the whole
// file, as Open does. Without that backend, it is Open's error for the
// file.
func OpenExtended(name, backend string, table []byte) (Source, error) {
	b, ok := backendNamed(backend)
	if !ok {
		return OpenTable(name, backend, table)
	}
	if b.Extend == nil {
		return b.Open(name)
	}
	return b.Extend(name, table)
}

// OpenWalking opens the CSV at name as Open does, but a compressed file
// whose backend can walk it as it is read (Backend.Walk) as a Walking
// source: a build's scan then reads it as it is decoded.
func OpenWalking(name string, advice mapping.Advice, o WalkOptions) (Source, error) {
	return open(name, advice, opening{walk: &o})
}

// OpenLike opens the CSV at name as Open does, but a compressed file that
// the backend named backend reads walking it as the walk that made table
// did (see Backend.OpenLike).
func OpenLike(name string, advice mapping.Advice, backend string, table []byte) (Source, error) {
	return open(name, advice, opening{like: backend, table: table})
}

// opening is how open opens a compressed file: as Open does, or as
// OpenWalking (walk) or OpenLike (like and table) do.
type opening struct {
	walk  *WalkOptions
	like  string
	table []byte
}

// Open opens the CSV at name through the backend that reads it: a local
// regular file of plain CSV is mapped whole (a File, which is Mapped), with
// advice for the kernel's read-ahead; a compressed file is opened by the
// first registered Backend that matches its first bytes (see Register). A
// URL that names no local file is opened by the opener registered for its
// scheme (see RegisterOpener). A URL that none reads and a compressed file
// no backend reads are errors that say so (a *CompressedError for the
// latter), as is anything but a regular file. Open is safe for concurrent
// use.
func Open(name string, advice mapping.Advice) (Source, error) {
	return open(name, advice, opening{})
}

// open is Open, OpenWalking or OpenLike, as how says.
func open(name string, advice mapping.Advice, how opening) (Source, error) {
	f, err := OpenFile(name, advice)
	if errors.Is(err, fs.ErrNotExist) && IsURL(name) {
		if open, ok := openerFor(name); ok {
			return openRemote(name, open, how)
		}
	}
	if err != nil {
		return nil, err
	}
	head, err := f.checkPlain()
	if err != nil {
		f.Close()
		return openCompressed(name, head, err, how)
	}
	return f, nil
}

// openCompressed opens the compressed file at name, whose first bytes are
// head, through the backend that matches them, as how says; cerr, the
// *CompressedError that says what it is, when none does.
func openCompressed(name string, head []byte, cerr error, how opening) (Source, error) {
	b, ok := backendFor(head)
	switch {
	case !ok:
		return nil, cerr
	case how.walk != nil && b.Walk != nil:
		return b.Walk(name, *how.walk)
	case how.like == b.Name && b.OpenLike != nil:
		return b.OpenLike(name, how.table)
	}
	return b.Open(name)
}

// openRemote opens the remote object at url with open, its scheme's
// opener: as it is, or, when its first bytes are compressed data, through
// the backend that reads them, to which the object opened is handed (see
// HandOff), so that it is not opened twice.
func openRemote(url string, open Opener, how opening) (Source, error) {
	src, err := open(url)
	if err != nil {
		return nil, err
	}
	head := make([]byte, min(HeadLen, src.Size()))
	n, err := src.ReadAt(context.Background(), head, 0)
	if err != nil && n < len(head) {
		src.Close()
		return nil, err
	}
	format := Compression(head)
	if format == "" {
		return src, nil
	}
	HandOff(url, src)
	s, err := openCompressed(url, head, &CompressedError{Path: url, Format: format, BGZF: format == "gzip" && isBGZF(head)}, how)
	if err != nil {
		Take(url) // not taken: close it
	}
	return s, err
}

// Stat returns what the CSV at path is, with Open's errors for a path that
// cannot be a CSV (see OpenInput), without reading any of it: writers
// check their index's paths against it before they take their lock, and
// open the CSV once they hold it. Of a URL that a registered opener reads
// (see RegisterOpener), it says a regular file, without asking its server.
func Stat(path string) (fs.FileInfo, error) {
	f, st, err := OpenInput(path)
	if errors.Is(err, fs.ErrNotExist) && IsURL(path) {
		if _, ok := openerFor(path); ok {
			return remoteInfo(path), nil
		}
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	return st, nil
}

// ReaderAt returns src as an io.ReaderAt whose reads give up at ctx's
// cancellation, for readers written for one (the freshness checks).
func ReaderAt(ctx context.Context, src Source) io.ReaderAt {
	return readerAt{ctx, src}
}

type readerAt struct {
	ctx context.Context
	src Source
}

func (r readerAt) ReadAt(p []byte, off int64) (int, error) { return r.src.ReadAt(r.ctx, p, off) }
