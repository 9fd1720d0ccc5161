package index

import (
	"context"
	"io"
	"io/fs"
	"os"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan"
)

// The rows of an open index, for a program that reads many of them (a
// join): a handle per goroutine that finds a key's rows, or a batch's
// (find.go), the CSV's bytes
// and dialect, a scan of its rows from an offset, and reading ahead. Reads
// run inside [Index.Guard].

// Rows finds the rows of keys in an index, for one goroutine: it holds the
// scanner that reads the candidate rows. Make one per goroutine.
type Rows struct {
	ix   *Index
	s    scan.Scanner
	find finding // Find's
}

// Rows returns a handle on ix's rows for one goroutine.
func (ix *Index) Rows() (*Rows, error) {
	r := &Rows{ix: ix}
	if ix.csv.mem == nil {
		return r, nil // Each reads through the source
	}
	if err := ix.main.h.InitScanner(&r.s, ix.csv.data); err != nil {
		return nil, err
	}
	return r, nil
}

// Each calls fn with the span of each row whose key is key, in file
// order, as [Index.Get] finds them. An error fn returns stops it and is
// returned.
func (r *Rows) Each(key []byte, fn func(Span) error) error {
	if r.ix.csv.mem == nil {
		return r.ix.eachRead([][]byte{key}, fn)
	}
	return r.ix.rows(&r.s, key, false, fn) // spans of Data, as documented
}

// Prefetch makes the lookups of keys to come (Each of each) cheap to
// make one at a time, when the index was opened with Options.Pages (a
// remote index): the index pages they read are fetched, then their rows,
// each in one round trip for all of keys. Otherwise it does nothing.
func (r *Rows) Prefetch(keys [][]byte) error {
	if r.ix.pages == nil || r.ix.csv.mem != nil {
		return nil
	}
	_, err := r.ix.candidates(keys)
	return err
}

// Data returns the CSV's bytes as mapped when the index was opened; the
// index covers [0, Covered()). Read them inside [Index.Guard].
func (ix *Index) Data() []byte { return ix.csv.data }

// Covered returns how many bytes of the CSV the index covers, its tail
// included.
func (ix *Index) Covered() int { return int(ix.furthest().Scanned) }

// Delimiter returns the CSV's delimiter, as the index was built with it.
func (ix *Index) Delimiter() byte { return ix.main.h.Delim }

// HeaderAt returns where the CSV's header record lies in [Index.Data],
// through its terminator; ok is false when the CSV has no header.
func (ix *Index) HeaderAt() (start, end int, ok bool) {
	h := ix.main.h
	return int(h.HeaderStart), int(h.HeaderEnd), h.HeaderEnd > 0
}

// Scan returns a scanner of the CSV's records and their keys from offset
// from, which must be a record's start, to the end of what the index
// covers.
func (ix *Index) Scan(from int) (*scan.Scanner, error) {
	if ix.csv.mem == nil {
		return nil, errNotMapped
	}
	s := new(scan.Scanner)
	if err := ix.main.h.InitScanner(s, ix.csv.data); err != nil {
		return nil, err
	}
	s.SetLimit(ix.Covered()) // nor does it search for quotes far past it
	s.Reset(from)
	return s, nil
}

// EachRecord calls fn with each record of the CSV from offset from, which
// must be a record's start, to the end of what the index covers, in file
// order, and whether it has the key: as Scan's scanner reads them, or, for
// a CSV that is not mapped, as a stream of the source reads them (Bytes is
// then valid until fn returns). An error fn returns stops it and is
// returned; so does ctx's cancellation.
func (ix *Index) EachRecord(ctx context.Context, from int, fn func(sp Span, hasKey bool) error) error {
	if ix.csv.mem == nil {
		return ix.eachRecordRead(ctx, from, fn)
	}
	s, err := ix.Scan(from)
	if err != nil {
		return err
	}
	data := ix.csv.data
	for n := 0; s.Next(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		_, has := s.Key()
		if err := fn(Span{s.Start(), s.End(), s.Terminated(), data[s.Start():s.End()]}, has); err != nil {
			return err
		}
	}
	return nil
}

// eachRecordRead is EachRecord for a CSV that is not mapped.
func (ix *Index) eachRecordRead(ctx context.Context, from int, fn func(sp Span, hasKey bool) error) error {
	covered := int64(ix.Covered())
	r := io.NewSectionReader(ix.csv.at(ctx), int64(from), covered-int64(from))
	rs := scan.NewStreamAt(r, int64(from), func(s *scan.Scanner, data []byte) error { return ix.main.h.InitScanner(s, data) })
	for {
		more, err := rs.Next()
		if err != nil || !more {
			return err
		}
		s, off := rs.Scanner(), int(rs.Offset())
		_, has := s.Key()
		rec := rs.Record()
		if err := fn(Span{off, off + len(rec), s.Terminated(), rec}, has); err != nil {
			return err
		}
	}
}

// Head returns the CSV's first bytes, from offset 0, which hold its first
// record whole, and its header's ([Index.HeaderAt]): the mapped bytes
// (read them inside [Index.Guard]), or for a CSV that is not mapped its
// first records, read.
func (ix *Index) Head() ([]byte, error) {
	if ix.csv.mem != nil {
		return ix.csv.data, nil
	}
	return readHead(ix.csv.src, ix.main.h.Delim)
}

// CSVPath returns the path of the CSV, as the index was opened with it.
func (ix *Index) CSVPath() string { return ix.csvPath }

// IndexPath returns the path of the index file.
func (ix *Index) IndexPath() string { return ix.idxPath }

// Definition returns what the index was built with.
func (ix *Index) Definition() *Definition { return definitionOf(ix.main.h) }

// FileOf reports whether fi is the CSV or one of the index's files, through
// any link: its path and what it is ("the CSV", or "index", "tail file",
// "fence file", "lock file").
func (ix *Index) FileOf(fi fs.FileInfo) (path, what string, ok bool) {
	var st fs.FileInfo
	var err error
	if ix.csv.mem != nil {
		st, err = ix.csv.mem.Stat()
	} else {
		st, err = os.Stat(ix.csvPath) // a compressed file
	}
	if err == nil && os.SameFile(fi, st) {
		return ix.csvPath, "the CSV", true
	}
	for _, f := range indexFiles(ix.idxPath).roles() {
		if st, err := os.Stat(f.path); err == nil && os.SameFile(fi, st) {
			return f.path, f.role.name, true
		}
	}
	return "", "", false
}

// Pages returns how many pages of 4 KiB the lookups may read: of the
// covered part of the CSV and of the index files.
func (ix *Index) Pages() int {
	pages := ix.Covered() / format.PageSize
	for _, p := range []*part{ix.main, ix.tail} {
		if p != nil {
			pages += len(p.data) / format.PageSize
		}
	}
	return pages
}

// ReadAhead reads the part of the CSV the index covers, and its index
// files whole (those mostly uncached), in the background, in big
// sequential reads that bring them into the page cache, where lookups then
// find them. (madvise(MADV_WILLNEED) over the mappings was tried first: it
// took 3.3 s for what reading took 0.5 s, see "Joins" in
// docs/performance.md.) It stops when ctx is done.
func (ix *Index) ReadAhead(ctx context.Context) {
	type file struct {
		path string
		n    int64 // the bytes to read: the CSV's that its index covers
	}
	var files []file
	if covered := ix.Covered(); ix.csv.mem != nil && uncached(ix.csv.mapping(), covered) {
		files = append(files, file{ix.csvPath, int64(covered)})
	}
	for _, p := range []*part{ix.main, ix.tail} {
		if p != nil && uncached(p.m, len(p.data)) {
			files = append(files, file{p.path, int64(len(p.data))})
		}
	}
	if len(files) == 0 {
		return
	}
	go func() {
		buf := make([]byte, readAheadChunk)
		for _, file := range files {
			f, _, err := mapping.Open(file.path) // a regular file, never a wait on a FIFO
			if err != nil {
				continue
			}
			for n := int64(0); n < file.n && ctx.Err() == nil; {
				k, err := f.Read(buf[:min(int64(len(buf)), file.n-n)])
				if err != nil {
					break
				}
				n += int64(k)
			}
			f.Close()
		}
	}()
}

// uncached reports whether a tenth of the pages of m's first n bytes or more
// are not in memory (or it cannot tell): a file worth reading ahead.
// Asking costs a mincore call, about a millisecond for 5 GB.
func uncached(m *mapping.Map, n int) bool {
	k, err := m.ResidentIn(n)
	ps := os.Getpagesize()
	pages := (n + ps - 1) / ps
	return err != nil || k < pages-pages/10
}

// readAheadChunk is the size of ReadAhead's reads.
const readAheadChunk = 1 << 20
