package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/source"
)

// Options say where an index is. A nil *Options means the defaults.
type Options struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's default index.
	By string
	// IndexDir, when set, is the directory the CSV's indexes live in
	// instead of next to it (see [HomeOf]); IndexPath wins over it.
	IndexDir string
	// NoFence searches the index without its fence file, for comparison:
	// the answers are the same.
	NoFence bool
	// CSV, when set, is the CSV at csvPath, opened already (a remote CSV
	// whose ends were read in the round trip that read the index's head):
	// Open reads it instead of opening csvPath, and Close closes it. Only a
	// plain CSV's index may be opened so.
	CSV source.Source
	// Pages, when set, is called with the byte ranges of the main index
	// file that the lookups of a batch of keys (a Get, a Count, a row of
	// Rows.Each) read, before they read them (see PageRanges): a reader of
	// an index file fetched in part, a remote one's copy, fetches them
	// there. Its error is the lookup's. Only a CSV that is not mapped (a
	// remote or compressed one) is looked up so.
	Pages func([]ByteRange) error
}

// locate returns the path of the index o names: IndexPath, else the CSV's
// index by By in its home (see Home.Locate).
func (o *Options) locate(csvPath string) (string, error) {
	switch {
	case o != nil && o.IndexPath != "" && o.By != "":
		return "", errors.New("an index path and a key to pick an index by: give one")
	case o != nil && o.IndexPath != "":
		return o.IndexPath, nil
	}
	h, err := o.home(csvPath)
	if err != nil {
		return "", err
	}
	by := ""
	if o != nil {
		by = o.By
	}
	p, err := h.Locate(by)
	if errors.Is(err, ErrNoIndex) {
		if cerr := source.Check(csvPath); cerr != nil {
			return "", cerr // see openFiles
		}
	}
	return p, err
}

// home returns where the indexes of the CSV at csvPath live, as o says.
func (o *Options) home(csvPath string) (Home, error) {
	if o == nil {
		return nextTo(csvPath), nil
	}
	return HomeOf(csvPath, o.IndexDir)
}

// Index is an open index with its CSV: the main index and, when rows were
// appended and indexed by update, its tail. It is safe for concurrent use.
// It sees the files as they were when it was opened: rows appended later are
// not indexed (see [Index.BytesBehind]), and a writer replacing the index
// files does not disturb it.
type Index struct {
	csvPath, idxPath string
	csv              *csvFile
	main             *part
	tail             *part // nil without a current tail
	hash             func([]byte) uint64
	noFence          bool          // search the index without its fence
	isDefault        bool          // the CSV's default index (see Locate)
	given            source.Source // the CSV, opened by the caller (Options.CSV)
	pages            func([]ByteRange) error
}

// Open opens the index of the CSV at csvPath, with its tail if it has a
// current one. It refuses a missing, broken or stale index, and a broken
// tail, with an error that says what to do; a tail left over from an
// interrupted compact or build (made for another main index) is ignored.
func Open(csvPath string, opts *Options) (_ *Index, err error) {
	idxPath, err := opts.locate(csvPath)
	if err != nil {
		return nil, err
	}
	defer namePath(&err, csvPath, idxPath)
	ix := &Index{csvPath: csvPath, idxPath: idxPath, hash: keyHash(), noFence: opts != nil && opts.NoFence}
	if opts != nil {
		ix.given, ix.pages = opts.CSV, opts.Pages
	}
	if opts == nil || opts.IndexPath == "" && opts.By == "" {
		ix.isDefault = true // Locate found it so
	} else if h, err := opts.home(csvPath); err == nil {
		ix.isDefault = h.isDefault(idxPath)
	}
	if err := ix.open(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// open opens the index's files and then the CSV (see openFiles), and
// refuses what a lookup cannot rely on: a main index or a tail that is
// missing (a tail may be), broken or stale.
func (ix *Index) open() error {
	o, err := indexFiles(ix.idxPath).openFiles(ix.csvPath, !ix.noFence)
	if err != nil {
		return err
	}
	ix.main, ix.tail = o.main, o.tail // Close releases them
	if o.mainIs == fileAbsent || o.mainIs == fileBroken || o.tailIs == fileBroken {
		return cmp.Or(o.mainWhy, o.tailWhy)
	}
	sp := sourcePart(ix.main, ix.tail)
	switch {
	case ix.given != nil && sp.h.Source != nil:
		return fmt.Errorf("%s is compressed, and its index may not be opened with the CSV opened already", ix.csvPath)
	case ix.given != nil:
		if ix.csv, err = fromSource(ix.given, sp.h.Delim, false); err != nil {
			return err
		}
		ix.given = nil // ix.csv closes it
	default:
		if ix.csv, err = openIndexed(ix.csvPath, sp, mapping.Random); err != nil {
			return err
		}
	}
	if err := o.judgeOpened(sp, ix.csv.src, int64(ix.csv.size)); err != nil {
		return err
	}
	if o.mainIs == fileStale || o.tailIs == fileStale {
		return cmp.Or(o.mainWhy, o.tailWhy)
	}
	return nil
}

// Close releases the mappings and files. Rows passed to callbacks must not
// be used afterwards.
func (ix *Index) Close() error {
	err := ix.main.close()
	if terr := ix.tail.close(); err == nil {
		err = terr
	}
	if ix.csv != nil {
		if cerr := ix.csv.close(); err == nil {
			err = cerr
		}
	}
	if ix.given != nil { // not taken: Open failed before
		ix.given.Close()
	}
	return err
}

// furthest returns the header of the file that indexes the CSV furthest: the
// tail if there is one, else the main index.
func (ix *Index) furthest() *format.Header {
	if ix.tail != nil {
		return ix.tail.h
	}
	return ix.main.h
}

// BytesBehind returns how many bytes the CSV had grown by, when the index
// was opened, since it was last indexed: rows there are not in the index.
// Of a compressed CSV, they are the file's bytes, which are not decoded.
func (ix *Index) BytesBehind() int64 {
	return int64(ix.csv.size) - int64(ix.furthest().Scanned) + ix.csv.grown
}

// Info describes the open index.
func (ix *Index) Info() *Info {
	info := newInfo(ix.csvPath, ix.idxPath, ix.main.h, int64(len(ix.main.data)), int64(ix.csv.size))
	info.addTail(ix.tail)
	info.setState()
	info.Default = ix.isDefault
	return info
}

// Check reports an error wrapping ErrChanged if the CSV changed, since the
// index was opened, in a way that makes rows read since then unreliable:
// it shrank, it was written in place (its size is the same, its
// modification time is not), or the first or last 64 KiB of what the index
// covers differ (the error then wraps the *RebuildError that says so too).
// Rows appended meanwhile are fine. It costs a stat, and two
// reads of 64 KiB per index file unless the CSV's size, modification time
// and change time (ctime, which no user can set back) are as they were at
// open; csvidx get calls it before printing its last buffer of rows.
func (ix *Index) Check() error {
	now, err := ix.csv.src.Current()
	if err != nil {
		return err
	}
	was := ix.csv.src.Identity()
	size, mapped := now.Size, int64(ix.csv.size)
	changed := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w: %s", ix.csvPath, ErrChanged, fmt.Sprintf(format, args...))
	}
	if sp := sourcePart(ix.main, ix.tail); sp.h.Source != nil { // a compressed file: its identity is the file's on disk
		if was.Same(now) {
			return nil
		}
		if _, err := sameFile(ix.csv.src, sp.h.Source, ix.csvPath, ix.idxPath, sp.h); err != nil {
			return fmt.Errorf("%s: %w: %w", ix.csvPath, ErrChanged, err)
		}
		return nil
	}
	switch {
	case size < mapped:
		return changed("it shrank from %d to %d bytes", mapped, size)
	case size == mapped && !now.ModTime.Equal(was.ModTime):
		return changed("it was written in place (modified at %s, opened as of %s)",
			now.ModTime.Format(time.RFC3339Nano), was.ModTime.Format(time.RFC3339Nano))
	case size == mapped && was.Same(now):
		return nil // untouched: the fingerprints were checked at open
	}
	for _, p := range []*part{ix.main, ix.tail} {
		if p == nil {
			continue
		}
		if err := checkFresh(ix.csv.at(context.Background()), size, p.h, ix.csvPath, p.path); err != nil {
			return fmt.Errorf("%s: %w: the bytes its index covers changed (%w)", ix.csvPath, ErrChanged, err)
		}
	}
	return nil
}
