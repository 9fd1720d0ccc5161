package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/sorter"
)

// VerifyOptions say where the index to verify is and how to rebuild it.
type VerifyOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's default index.
	By string
	// IndexDir, when set, is the directory the CSV's indexes live in
	// instead of next to it (see [HomeOf]); IndexPath wins over it.
	IndexDir string
	// Resources bound the rebuild's memory and say where it may spill.
	Resources
	// Progress, when set, is called now and then with the CSV bytes
	// scanned so far and the number to scan.
	Progress func(done, total int64)
}

// VerifyResult says whether an index equals a fresh build.
type VerifyResult struct {
	// Equal is true when the index file is byte for byte what a build of
	// the CSV bytes it covers writes now.
	Equal bool
	// Differences says where it differs, one finding a line.
	Differences []string
	// BytesBehind is how much the CSV grew after the index was built; those
	// bytes are not compared.
	BytesBehind int64
	// Notes are findings that are not differences: a fence that is missing
	// or belongs to another index only costs speed, and lookups ignore it.
	Notes []string
	// Path is the index file verified.
	Path string
	// Built is what the index was built with, from its header, for the
	// build that makes it again; nil when its header is broken.
	Built *Definition
}

// Verify rebuilds the index of the CSV at csvPath in memory, with the
// options the index was built with, over the CSV bytes it covers, and
// compares the result with the index file byte for byte. A broken or stale
// index is a difference, not an error; errors are for what stops the
// comparison: a missing index, an unreadable CSV.
func Verify(ctx context.Context, csvPath string, opts *VerifyOptions) (_ *VerifyResult, err error) {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	defer namePath(&err, csvPath, opts.IndexPath)
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	o := &Options{IndexPath: opts.IndexPath, By: opts.By, IndexDir: opts.IndexDir}
	idxPath, err := o.locate(csvPath)
	if err != nil {
		return nil, err
	}
	rs, err := verifyIndexes(ctx, csvPath, []string{idxPath}, opts)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// VerifyAll verifies every index of the CSV at csvPath (see [Indexes]) as
// Verify does, in one scan for the main indexes that cover the same bytes
// and one for the tails that do. It returns a result per index, in the
// order of Indexes; a CSV without an index is an error, as for Verify.
// With opts.IndexPath or opts.By, it verifies that one index.
func VerifyAll(ctx context.Context, csvPath string, opts *VerifyOptions) (_ []*VerifyResult, err error) {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	if opts.IndexPath != "" || opts.By != "" {
		r, err := Verify(ctx, csvPath, opts)
		if err != nil {
			return nil, err
		}
		return []*VerifyResult{r}, nil
	}
	defer namePath(&err, csvPath, "")
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	h, err := HomeOf(csvPath, opts.IndexDir)
	if err != nil {
		return nil, err
	}
	paths, err := h.Indexes()
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		paths = []string{h.DefaultIndexPath()} // which Verify reports missing
	}
	return verifyIndexes(ctx, csvPath, paths, opts)
}

// verifyIndexes verifies the index at each of paths of the CSV at csvPath
// (see Verify): first their main indexes, each set of those that cover the
// same CSV bytes in one scan, then their tails likewise.
func verifyIndexes(ctx context.Context, csvPath string, paths []string, opts *VerifyOptions) ([]*VerifyResult, error) {
	// A missing main index is an error; a broken file is a difference. A
	// stale one needs no verdict: the rebuild over what it covers says how
	// it differs.
	rs := make([]*VerifyResult, len(paths))
	var mains, tails []verifyJob
	for i, path := range paths {
		ix := indexFiles(path)
		files, err := ix.openFiles(csvPath, false)
		if err != nil {
			return nil, err
		}
		defer files.close()
		rs[i] = &VerifyResult{Path: path}
		switch {
		case files.mainIs == fileAbsent:
			return nil, files.mainWhy
		case files.mainIs == fileBroken:
			rs[i].Differences = append(rs[i].Differences, files.mainWhy.Error())
			continue
		case files.tailIs == fileBroken:
			rs[i].Differences = append(rs[i].Differences, files.tailWhy.Error())
		}
		rs[i].Built = definitionOf(files.main.h)
		fc := newFenceCheck(ix.fence)
		defer fc.close()
		mains = append(mains, verifyJob{res: rs[i], p: files.main, fc: fc})
		if files.tail != nil {
			tails = append(tails, verifyJob{res: rs[i], p: files.tail, extends: files.main.h})
		}
	}
	csv, err := openCSV(csvPath, mapping.Sequential)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	for _, jobs := range [][]verifyJob{mains, tails} {
		for _, group := range sameScans(jobs, verifyJob.scanOf) {
			if err := verifyParts(ctx, csv, group, opts); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range rs {
		r.Equal = len(r.Differences) == 0
	}
	return rs, nil
}

// A verifyJob is one index file to verify: a main index with its fence's
// check, or a tail with the main index it extends.
type verifyJob struct {
	res     *VerifyResult // the result of the index it belongs to
	p       *part
	extends *format.Header // for a tail, the main index it extends
	fc      *fenceCheck    // for a main index, the check of its fence
}

// scanOf returns the scan that rebuilds j's file: over the bytes it
// covers, from where a tail starts, in its dialect.
func (j verifyJob) scanOf() scanKey {
	h := j.p.h
	k := scanKey{scanned: h.Scanned, delim: h.Delim, header: h.Flags&format.FlagHeader != 0}
	if j.extends != nil {
		k.from = j.extends.Resume
	}
	return k
}

// verifyParts rebuilds the index files of jobs, which cover the same CSV
// bytes (see verifyJob.scanOf), in one scan over those bytes, compares each with
// its file, and the fence a main index makes with its check, and adds what
// differs to each job's result.
func verifyParts(ctx context.Context, csv *csvFile, jobs []verifyJob, opts *VerifyOptions) error {
	scanned := jobs[0].p.h.Scanned
	if uint64(len(csv.data)) < scanned {
		for _, j := range jobs {
			j.res.Differences = append(j.res.Differences, fmt.Sprintf("%s shrank from %d to %d bytes since %s was built; rebuild the index",
				csv.path, scanned, len(csv.data), j.p.path))
		}
		return nil
	}
	covered := *csv
	covered.data = csv.data[:scanned]
	sinks := make([]*compareSink, len(jobs))
	for i, j := range jobs {
		j.p.m.Advise(mapping.Sequential) // the comparison reads the file from end to end
		sinks[i] = &compareSink{old: j.p.data}
	}
	pl := &pipeline{csv: &covered, res: opts.Resources, progress: opts.Progress}
	fresh, err := pl.rebuild(ctx, jobs, sinks)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		for _, d := range sinks[i].report(csv.path, j.p.h, fresh[i].h) {
			j.res.Differences = append(j.res.Differences, filepath.Base(j.p.path)+": "+d)
		}
		if j.fc != nil {
			diffs, notes := j.fc.report(j.p.h.Generation, fresh[i].h.Generation)
			j.res.Differences = append(j.res.Differences, diffs...)
			j.res.Notes = append(j.res.Notes, notes...)
		}
		j.res.BytesBehind = int64(len(csv.data)) - int64(scanned)
	}
	return nil
}

// rebuild builds the index files of jobs again, in one scan over the CSV
// bytes of p, with the options each was built with, and hands their pages
// to sinks.
func (p *pipeline) rebuild(ctx context.Context, jobs []verifyJob, sinks []*compareSink) ([]*built, error) {
	parts := make([]*scanPart, len(jobs))
	for i, j := range jobs {
		parts[i] = &scanPart{main: j.extends, flat: !j.p.h.Dense(), path: j.p.path, sink: sinks[i]}
		if j.fc != nil {
			parts[i].fence = j.fc.add
		}
	}
	var start int
	if jobs[0].extends == nil {
		specs, paths := make([]spec, len(jobs)), make([]string, len(jobs))
		for i, j := range jobs {
			specs[i], paths[i] = specOf(j.p.h), j.p.path
		}
		mains, from, err := p.mainParts(specs, paths)
		if err != nil {
			return nil, err
		}
		for i := range parts {
			parts[i].h = mains[i].h
		}
		start = from
	} else {
		for i, j := range jobs {
			parts[i].h, start = tailHeader(j.extends, len(p.csv.data))
		}
	}
	return p.runParts(ctx, parts, start, writerShape{})
}

// compareSink compares the pages of a fresh build with an index file.
type compareSink struct {
	old      []byte // the index file
	diffPage uint64 // the first record page (file page number) that differs, or 0
	diffNew  []byte // that page as the fresh build has it
	nextNew  []byte // and the page after it, if the fresh build has one
}

func (c *compareSink) WritePage(n uint64, page []byte) error {
	switch {
	case n == 0:
	case c.diffPage == 0:
		off := n * format.PageSize
		if off+format.PageSize > uint64(len(c.old)) || !bytes.Equal(c.old[off:off+format.PageSize], page) {
			c.diffPage, c.diffNew = n, bytes.Clone(page)
		}
	case n == c.diffPage+1:
		c.nextNew = bytes.Clone(page)
	}
	return nil
}

// report lists how the old index of the CSV at csvPath differs from the
// fresh build.
func (c *compareSink) report(csvPath string, old, fresh *format.Header) []string {
	var out []string
	diff := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: the index says %v, a fresh build %v", name, a, b))
		}
	}
	diff("scanned bytes", old.Scanned, fresh.Scanned)
	diff("rows", old.Rows, fresh.Rows)
	diff("index records", old.Records, fresh.Records)
	diff("short rows", old.ShortRows, fresh.ShortRows)
	diff("blank lines", old.Blanks, fresh.Blanks)
	diff("resume offset", old.Resume, fresh.Resume)
	diff("header record end", old.HeaderEnd, fresh.HeaderEnd)
	diff("key name", fmt.Sprintf("%q", old.KeyName), fmt.Sprintf("%q", fresh.KeyName))
	diff("checksum of the first bytes", old.HeadChecksum, fresh.HeadChecksum)
	diff("checksum of the last bytes", old.TailChecksum, fresh.TailChecksum)
	diff("fingerprint bits", old.FPBits, fresh.FPBits)
	diff("offset bits", old.OffBits, fresh.OffBits)
	first := c.diffPage
	if first == 0 && c.oldPages(old) > fresh.Pages {
		first = fresh.Pages + 1 // the index goes on past the fresh build's last page
	}
	if first != 0 {
		out = append(out, c.pageDifference(csvPath, first-1, old, fresh))
	}
	if len(out) == 0 {
		var page [format.PageSize]byte
		fresh.Encode(page[:])
		if !bytes.Equal(c.old[:format.PageSize], page[:]) {
			out = append(out, "the header page differs")
		}
	}
	return out
}

// oldPages returns how many record pages the index has: as its header
// says, within its size.
func (c *compareSink) oldPages(old *format.Header) uint64 {
	n := uint64(len(c.old) / format.PageSize)
	if n == 0 {
		return 0
	}
	return min(old.Pages, n-1)
}

// oldPage returns record page pg of the index, or nil past its last.
func (c *compareSink) oldPage(old *format.Header, pg uint64) []byte {
	if pg >= c.oldPages(old) {
		return nil
	}
	return c.old[format.PageSize*(1+pg):][:format.PageSize]
}

// newPage returns record page pg of the fresh build, pg being the first
// that differs or the one after it, or nil past its last.
func (c *compareSink) newPage(first, pg uint64) []byte {
	if pg == first {
		return c.diffNew
	}
	return c.nextNew
}

// pageDifference describes record page pg, the first that differs from
// the fresh build's (or that only one of them has): the index's page is
// corrupt, or, where their records first part, a row of the CSV at
// csvPath, named by its byte, that one of them has and the other has not.
// Records are compared as the index orders them, decoded in its format
// from that page and the next of each side: the pages before are equal, so
// they part on page pg, or at the first record of the next page (a page
// ends where its last run no longer fits).
func (c *compareSink) pageDifference(csvPath string, pg uint64, old, fresh *format.Header) string {
	if old.FPBits != fresh.FPBits || old.OffBits != fresh.OffBits {
		return fmt.Sprintf("record page %d and those after it differ: their rows are coded in other widths", pg)
	}
	olds, news := &sideRecords{from: pg}, &sideRecords{from: pg}
	if pg > 0 {
		// Both sides go on from the last record of the page before, which
		// they share: the index's order is checked from there.
		prev, err := pageRecords(nil, old, c.oldPage(old, pg-1), pg-1)
		if err == nil && len(prev) > 0 {
			olds.recs = append(olds.recs, prev[len(prev)-1])
			news.recs = append(news.recs, prev[len(prev)-1])
		}
	}
	i := len(olds.recs) // the records before i are the same
	for p := pg; p <= pg+1; p++ {
		if page := c.oldPage(old, p); page != nil {
			if !crcpage.Intact(page) {
				return fmt.Sprintf("record page %d (bytes %d to %d) is corrupt: checksum mismatch", p, format.PageSize*(1+p), format.PageSize*(2+p))
			}
			if bad := olds.add(old, page, p); bad != "" {
				return bad
			}
		}
		if page := c.newPage(pg, p); page != nil {
			news.add(fresh, page, p) // whole: the build wrote it
		}
		for ; i < min(len(olds.recs), len(news.recs)); i++ {
			if o, n := olds.recs[i], news.recs[i]; o != n {
				if format.RecordBefore(o, n) {
					return olds.missing(csvPath, i, fresh.Pages, true)
				}
				return news.missing(csvPath, i, c.oldPages(old), false)
			}
		}
		oldDone, newDone := p+1 >= c.oldPages(old), p+1 >= fresh.Pages
		switch {
		case i < len(news.recs) && oldDone:
			return news.missing(csvPath, i, c.oldPages(old), false)
		case i < len(olds.recs) && newDone:
			return olds.missing(csvPath, i, fresh.Pages, true)
		}
		if oldDone && newDone {
			break // both end with the same records
		}
	}
	return fmt.Sprintf("record page %d differs from a fresh build's, though not in the rows it lists", pg)
}

// sideRecords are the records of the index or of the fresh build from
// record page from on, a page at a time.
type sideRecords struct {
	from  uint64
	recs  []sorter.Record
	pages []int // where the records of each page, from from on, start in recs
}

// add decodes record page p, page, of an index with header h, and checks
// the order of its records from the record before, and that their rows
// are within the bytes the index covers. It returns what is wrong, if
// anything.
func (s *sideRecords) add(h *format.Header, page []byte, p uint64) string {
	n := len(s.recs)
	s.pages = append(s.pages, n)
	var err error
	if s.recs, err = pageRecords(s.recs, h, page, p); err != nil {
		return fmt.Sprintf("corrupt: %v", err)
	}
	for i := max(n, 1); i < len(s.recs); i++ {
		if !format.RecordBefore(s.recs[i-1], s.recs[i]) {
			if !h.Dense() {
				return fmt.Sprintf("record %d, on record page %d, does not come after the record before it: records must strictly increase", p*format.RecordsPerPage+uint64(i-n), p)
			}
			return fmt.Sprintf("row %d of record page %d does not come after the row before it: records must strictly increase", i-n, p)
		}
	}
	for _, r := range s.recs[n:] {
		if r.Offset < h.Base || r.Offset >= h.Scanned {
			return fmt.Sprintf("corrupt: a record of record page %d points at byte %d, outside the bytes [%d, %d) it indexes", p, r.Offset, h.Base, h.Scanned)
		}
	}
	return ""
}

// missing says that the CSV changed at the row of record i, which the
// other side, of otherPages record pages, lacks: the index's record
// (index) names a row the CSV no longer has there, the fresh build's one
// the index does not have under its key.
func (s *sideRecords) missing(csvPath string, i int, otherPages uint64, index bool) string {
	p := s.from
	for k, start := range s.pages {
		if start <= i {
			p = s.from + uint64(k)
		}
	}
	what, where := "is not indexed under its key", fmt.Sprintf("record page %d", p)
	switch {
	case index && p >= otherPages:
		where = fmt.Sprintf("a fresh build ends before record page %d", p)
	case p >= otherPages:
		where = fmt.Sprintf("the index ends before record page %d of a fresh build", p)
	}
	if index {
		what = "is not the one the index has there"
	}
	return fmt.Sprintf("the row at byte %d of %s %s: the CSV changed there or near it since the build (%s)", s.recs[i].Offset, csvPath, what, where)
}

// pageRecords appends to dst the records of record page pg, page, of an
// index with header h, decoded in its format: format 1's hashes, format
// 2's fingerprints as masked hashes, each with its row's offset. It checks
// a format 2 page whole (see densePage.each); the order of format 1's
// records is for the caller to check.
func pageRecords(dst []sorter.Record, h *format.Header, page []byte, pg uint64) ([]sorter.Record, error) {
	switch {
	case page == nil:
		return dst, nil
	case h.Dense():
		d, err := format.OpenDensePage(page, pg, int(h.FPBits), int(h.OffBits))
		if err != nil {
			return dst, err
		}
		if dst, err = d.Records(dst); err != nil {
			return dst, fmt.Errorf("record page %d: %w", pg, err)
		}
		return dst, nil
	}
	le := binary.LittleEndian
	k := min(int(le.Uint32(page[format.PageLenOffset:])), format.RecordsPerPage)
	for o := 0; o < format.RecordSize*k; o += format.RecordSize {
		dst = append(dst, sorter.Record{Hash: le.Uint64(page[o:]), Offset: le.Uint64(page[o+8:])})
	}
	return dst, nil
}
