package remoteindex

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/remote"
)

// Options say where a remote CSV's index is and how to fetch it.
type Options struct {
	// Client fetches; nil for remote.DefaultClient.
	Client *remote.Client
	// IndexURL is the main index's URL; the CSV's URL with .csvidx when
	// empty. Its fence and tail are next to it (.fence, .tail).
	IndexURL string
	// CacheDir is where fetched pieces are kept; DefaultCacheDir when
	// empty.
	CacheDir string
	// NoCache keeps the pieces in a temporary directory, removed at Close.
	NoCache bool
	// CacheMax is the most bytes the cache keeps on disk (the pages
	// fetched, not the indexes' sizes); DefaultCacheMax when 0.
	CacheMax int64
	// Cold opens from the index's head, never from what the cache kept
	// alone: for a caller that looks up through Index() rather than Get,
	// whose first lookup of a warm opening checks the CSV's version.
	Cold bool
	// By, when IndexURL is empty, picks the CSV's index by a key spec, as
	// a local CSV's (see index.Options.By): the one next to it, when it is
	// by those columns, else the by- name of the columns next to it
	// (index.ByName), which takes an opening more.
	By string
}

// An Index is a remote CSV's index, open for lookups: its main index file
// fetched in part into the cache, its fence and tail whole.
type Index struct {
	ix     *index.Index
	c      *remote.Client
	csvURL string
	idx    *remote.Object // the main index
	csv    *remote.Source
	file   *os.File // the cache's copy of the main index, pages written as they are fetched
	opts   Options
	base   string          // the cache's directory
	temp   string          // the cache directory to remove at Close (NoCache)
	warm   bool            // opened from the cache alone: the CSV's version not checked yet
	ctx    context.Context // the lookup's, for the pages it fetches
}

// indexChanged wraps the error of a fetch of the index's pages: another
// version of the index is there now (remote.ErrChanged), or it failed.
type indexChanged struct{ err error }

func (e indexChanged) Error() string { return e.err.Error() }
func (e indexChanged) Unwrap() error { return e.err }

// Open opens the index of the CSV at csvURL in one round trip (see the
// package documentation).
func Open(ctx context.Context, csvURL string, o *Options) (*Index, error) {
	x := &Index{csvURL: csvURL}
	if o != nil {
		x.opts = *o
	}
	x.c = x.opts.Client
	if x.c == nil {
		x.c = remote.DefaultClient
	}
	if x.opts.IndexURL == "" {
		x.opts.IndexURL = csvURL + ".csvidx"
	}
	base, err := x.cacheBase()
	if err != nil {
		return nil, err
	}
	x.base = base
	if err := x.openFirst(ctx); err != nil {
		x.Close()
		return nil, err
	}
	if x.opts.By == "" || o.IndexURL != "" {
		return x, nil
	}
	cols, err := x.columns(x.opts.By)
	if err != nil {
		x.Close()
		return nil, err
	}
	if slices.Equal(cols, x.ix.KeyColumns()) {
		return x, nil
	}
	x.closeIndex()
	x.opts.IndexURL = index.ByName(csvURL, cols)
	if err := x.openFirst(ctx); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// cacheBase returns the cache's directory as x.opts says: a temporary one
// (NoCache), removed at Close, or CacheDir, or DefaultCacheDir.
func (x *Index) cacheBase() (string, error) {
	switch {
	case x.opts.NoCache:
		d, err := os.MkdirTemp("", "csvidx-remote-")
		if err != nil {
			return "", err
		}
		x.temp = d
		return d, nil
	case x.opts.CacheDir != "":
		return x.opts.CacheDir, nil
	}
	return DefaultCacheDir()
}

// openFirst opens the index from the cache alone when it can, else from
// its head (see open).
func (x *Index) openFirst(ctx context.Context) error {
	if !x.opts.NoCache && !x.opts.Cold && x.openWarm() == nil {
		return nil
	}
	x.closeIndex()
	return x.open(ctx, x.base)
}

// columns returns the columns of the key spec by, resolved against the
// CSV's header as the open index read it (its dialect's).
func (x *Index) columns(by string) ([]int, error) {
	row, err := x.ix.Header()
	if err != nil {
		return nil, err
	}
	delim := x.ix.Delimiter()
	fields, _, _ := scan.Fields(row, 0, delim)
	return keyspec.Resolve(by, fields, row != nil, delim)
}

// open fetches the index's head, fence and tail and the CSV's ends, and
// opens the index on the pieces cached under base.
func (x *Index) open(ctx context.Context, base string) error {
	u := x.opts.IndexURL
	got := x.c.OpenAll(ctx, []remote.Fetch{
		{URL: u, N: format.PageSize},
		{URL: u + ".fence", N: remote.Whole},
		{URL: u + ".tail", N: remote.Whole},
		{URL: x.csvURL, N: remote.HeadBytes},
		{URL: x.csvURL, N: remote.HeadBytes, Suffix: true},
		{URL: u, N: tableSuffix, Suffix: true}, // a compressed CSV's index ends with the table of its frames
	})
	idx, fence, tail, head, end, last := got[0], got[1], got[2], got[3], got[4], got[5]
	if missing(idx.Err) && head.Err == nil && multifile.IsManifestBytes(head.Bytes) {
		e := &ManifestError{URL: x.csvURL}
		if int64(len(head.Bytes)) == head.Object.Size() {
			e.Data = head.Bytes
		}
		return e
	}
	for _, f := range []remote.Fetched{idx, head, end} {
		if f.Err != nil {
			return noIndex(f.Err, u, x.csvURL)
		}
	}
	for _, f := range []remote.Fetched{fence, tail} {
		if f.Err != nil && !missing(f.Err) {
			return f.Err
		}
	}
	if he, _ := head.Object.ETag(); !sameVersion(head.Object, end.Object) {
		return fmt.Errorf("%s: %w (its ETag was %s, then %s)", x.csvURL, remote.ErrChanged, he, etagOf(end.Object))
	}
	etag, _ := idx.Object.ETag()
	dir := entryDir(base, u, etag)
	main := filepath.Join(dir, "index.csvidx")
	if err := x.cacheMain(dir, main, idx); err != nil {
		return err
	}
	if last.Err == nil && sameVersion(last.Object, idx.Object) {
		if _, err := x.file.WriteAt(last.Bytes, last.At); err != nil {
			return err
		}
	}
	h, err := format.DecodeHeader(idx.Bytes)
	if err != nil {
		return err // index.Open says it better; it fails all the same
	}
	if h.Source != nil { // the table of the compressed CSV's frames, which the opening reads whole
		at := int64(format.PageSize * (1 + h.Pages))
		if err := x.fetch(ctx, []index.ByteRange{{Off: at, Len: idx.Object.Size() - at}}); err != nil {
			return err
		}
	}
	if err := cacheWhole(main, fence, tail); err != nil {
		return err
	}
	if err := x.openOn(dir, remote.NewSource(head.Object, head.Bytes, map[int64][]byte{end.At: end.Bytes}), h.Source != nil); err != nil {
		return err
	}
	// The CSV's ends, for the next opening, once the index is found fresh
	// on them.
	for _, piece := range []struct {
		name string
		b    []byte
	}{{"csv.head", head.Bytes}, {"csv.end", end.Bytes}} {
		if err := writeWhole(filepath.Join(dir, piece.name), piece.b); err != nil {
			return fmt.Errorf("the cache of remote indexes: %w", err)
		}
	}
	csvETag, _ := head.Object.ETag()
	st := state{IndexURL: u, IndexETag: etag, IndexSize: idx.Object.Size(), CSVURL: x.csvURL, CSVETag: csvETag, CSVSize: head.Object.Size(), EndAt: end.At, Compressed: h.Source != nil}
	if err := st.save(x.base, dir); err != nil {
		return fmt.Errorf("the cache of remote indexes: %w", err)
	}
	if x.temp == "" {
		prune(x.base, dir, cmp.Or(x.opts.CacheMax, DefaultCacheMax)) // best effort: a cache too big is no error
	}
	return nil
}

// cacheMain makes main, in the cache's directory dir, the cache's copy of
// the main index idx fetched the head page of: a sparse file of its size,
// that page written, which x then reads and writes.
func (x *Index) cacheMain(dir, main string, idx remote.Fetched) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("the cache of remote indexes: %w", err)
	}
	f, err := openSparse(main, idx.Object.Size())
	if err != nil {
		return fmt.Errorf("the cache of remote indexes: %w", err)
	}
	x.file, x.idx = f, idx.Object
	_, err = f.WriteAt(idx.Bytes, 0)
	return err
}

// cacheWhole writes the fence and the tail fetched whole beside main, the
// cache's copy of their main index, or removes the copies of those that
// are not there now.
func cacheWhole(main string, fence, tail remote.Fetched) error {
	for _, piece := range []struct {
		f    remote.Fetched
		path string
	}{{fence, main + ".fence"}, {tail, main + ".tail"}} {
		if piece.f.Err != nil {
			os.Remove(piece.path) // none now
			continue
		}
		if err := writeWhole(piece.path, piece.f.Bytes); err != nil {
			return fmt.Errorf("the cache of remote indexes: %w", err)
		}
	}
	return nil
}

// openOn opens the index whose pieces are in the cache's directory dir,
// with csv, the CSV: a plain one given to index.Open as it is, a
// compressed one (when compressed) handed to the backend that decodes it
// (source.HandOff), which the index opens through its table.
func (x *Index) openOn(dir string, csv *remote.Source, compressed bool) error {
	o := &index.Options{IndexPath: filepath.Join(dir, "index.csvidx"), CSV: csv, Pages: x.fetchPages}
	if compressed {
		o.CSV = nil
		source.HandOff(x.csvURL, csv)
		defer source.Take(x.csvURL) // when the backend did not take it
	}
	ix, err := index.Open(x.csvURL, o)
	if err != nil {
		return err
	}
	x.ix, x.csv = ix, csv
	return nil
}

// openWarm opens the index on what the cache kept of its last opening,
// with no request: the versions it found are checked by the first reads
// (If-Match), and the CSV's by the first lookup (see Get).
func (x *Index) openWarm() error {
	st, dir, err := loadState(x.base, x.opts.IndexURL, x.csvURL)
	if err != nil {
		return err
	}
	main := filepath.Join(dir, "index.csvidx")
	f, err := openSparse(main, st.IndexSize)
	if err != nil {
		return err
	}
	x.file, x.idx = f, x.c.Known(st.IndexURL, st.IndexSize, st.IndexETag)
	head, err := os.ReadFile(filepath.Join(dir, "csv.head"))
	if err != nil {
		return err
	}
	end, err := os.ReadFile(filepath.Join(dir, "csv.end"))
	if err != nil {
		return err
	}
	csv := remote.NewSource(x.c.Known(st.CSVURL, st.CSVSize, st.CSVETag), head, map[int64][]byte{st.EndAt: end})
	if err := x.openOn(dir, csv, st.Compressed); err != nil {
		return err
	}
	touch(dir)
	x.warm = true
	return nil
}

// Get calls fn with the rows of keys, as index.Index.Get does: its
// lookups fetch the record pages they read that the cache lacks (one round
// trip, see index.Options.Pages), then the rows (another). An index that
// changed since it was opened is opened again, once; should a page the
// fence did not name be read, all the record pages are fetched, once. A
// CSV that changed is ErrStale. The first lookup of an index opened from
// the cache alone checks the CSV's version before it gives a row: by the
// rows' reads, or by a read of its own when the cache held them all. An
// Index's lookups are not to run at once.
func (x *Index) Get(ctx context.Context, keys [][]byte, fn func(row []byte) error) error {
	x.ctx = ctx
	err := x.get(ctx, keys, fn)
	var ic indexChanged
	if errors.As(err, &ic) && errors.Is(err, remote.ErrChanged) || errors.Is(err, remote.ErrChanged) && x.warm {
		// The index was replaced, or what the cache kept is of older
		// versions: open it again, once.
		if err = x.reopen(ctx); err == nil {
			err = x.get(ctx, keys, fn)
		}
	}
	if errors.Is(err, remote.ErrChanged) && !errors.As(err, &ic) { // the CSV, changed
		return fmt.Errorf("%w: %w; build its index again", index.ErrStale, err)
	}
	return err
}

// get is Get, once.
func (x *Index) get(ctx context.Context, keys [][]byte, fn func(row []byte) error) error {
	emit := fn
	var held [][]byte // the rows, until the CSV's version is checked
	if x.warm {
		emit = func(row []byte) error { held = append(held, bytes.Clone(row)); return nil }
	}
	before := x.csv.Fetches()
	err := x.ix.Get(keys, emit)
	if errors.Is(err, format.ErrCorrupt) { // a page the plan missed: before any row (candidates are read first)
		if err = x.fetch(ctx, []index.ByteRange{{Off: format.PageSize, Len: x.idx.Size() - format.PageSize}}); err == nil {
			held = held[:0]
			err = x.ix.Get(keys, emit)
		}
	}
	if err != nil || !x.warm {
		return err
	}
	if x.csv.Fetches() == before { // every row came from the cache: check the version
		if _, err := x.csv.Object().ReadRanges(ctx, []remote.Range{{Off: 0, Len: 1}}); err != nil {
			return err
		}
	}
	x.warm = false
	for _, row := range held {
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

// fetchPages is the index's Pages: it fetches the pages of rs the cache
// lacks, in the context of the lookup that asks.
func (x *Index) fetchPages(rs []index.ByteRange) error {
	ctx := x.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if err := x.fetch(ctx, rs); err != nil {
		return indexChanged{err}
	}
	return nil
}

// reopen opens the index again, from its head, after it changed.
func (x *Index) reopen(ctx context.Context) error {
	x.closeIndex()
	x.warm = false
	return x.open(ctx, x.base)
}

// fetch makes the cache hold the bytes of rs of the main index: the pages
// it lacks (whose checksums do not hold) are fetched in one round trip.
func (x *Index) fetch(ctx context.Context, rs []index.ByteRange) error {
	var need []remote.Range
	page := make([]byte, format.PageSize)
	for _, r := range rs {
		for off := r.Off; off < r.Off+r.Len; off += format.PageSize {
			if n, err := x.file.ReadAt(page, off); n == len(page) && err == nil && crcpage.Intact(page) {
				continue
			}
			if k := len(need); k > 0 && need[k-1].Off+need[k-1].Len == off {
				need[k-1].Len += format.PageSize
			} else {
				need = append(need, remote.Range{Off: off, Len: format.PageSize})
			}
		}
	}
	if len(need) == 0 {
		return nil
	}
	bs, err := x.idx.ReadRanges(ctx, need)
	if err != nil {
		return err
	}
	for i, r := range need {
		if _, err := x.file.WriteAt(bs[i], r.Off); err != nil {
			return fmt.Errorf("the cache of remote indexes: %w", err)
		}
	}
	return nil
}

// Local fetches every page of the main index the cache lacks (one round
// trip) and returns the path of the cache's whole copy, with its fence and
// tail next to it: for what reads all of an index, as verify does.
func (x *Index) Local(ctx context.Context) (string, error) {
	if err := x.fetch(ctx, []index.ByteRange{{Off: format.PageSize, Len: x.idx.Size() - format.PageSize}}); err != nil {
		return "", err
	}
	return x.file.Name(), nil
}

// Count returns how many rows key has.
func (x *Index) Count(ctx context.Context, key []byte) (int64, error) {
	n := int64(0)
	err := x.Get(ctx, [][]byte{key}, func([]byte) error { n++; return nil })
	return n, err
}

// Index returns the index opened on the cache, for what reads no more
// than its header (Info).
func (x *Index) Index() *index.Index { return x.ix }

// closeIndex closes the index and the cache's file.
func (x *Index) closeIndex() {
	if x.ix != nil {
		x.ix.Close()
		x.ix = nil
	}
	if x.file != nil {
		x.file.Close()
		x.file = nil
	}
	x.csv = nil
}

// Close closes the index, and removes a temporary cache (NoCache).
func (x *Index) Close() error {
	x.closeIndex()
	if x.temp != "" {
		return os.RemoveAll(x.temp)
	}
	return nil
}

// missing reports whether err says an object does not exist (a 404).
func missing(err error) bool {
	var se *remote.StatusError
	return errors.As(err, &se) && se.Code == http.StatusNotFound
}

// noIndex words err, fetching the index's head or the CSV's ends: a
// missing index says to build it.
func noIndex(err error, idxURL, csvURL string) error {
	var se *remote.StatusError
	if errors.As(err, &se) && se.Code == http.StatusNotFound && se.URL == idxURL {
		return fmt.Errorf("%w for %s: %s does not exist; build it (csvidx build %s --key COLUMNS), or give the index with --index", index.ErrNoIndex, csvURL, idxURL, csvURL)
	}
	return err
}

// sameVersion reports whether a and b, the same object opened twice, are
// the same version: the same size and ETag.
func sameVersion(a, b *remote.Object) bool {
	ea, _ := a.ETag()
	eb, _ := b.ETag()
	return a.Size() == b.Size() && ea == eb
}

func etagOf(o *remote.Object) string { e, _ := o.ETag(); return e }

// tableSuffix is how much of a main index's end its opening reads at once:
// the table of a compressed CSV's frames, when no larger (5 or 6 bytes a
// frame: 43,000 frames; a larger one costs a round trip more).
const tableSuffix = 256 << 10
