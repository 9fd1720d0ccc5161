package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/internal/mapping"
)

// VerifyOptions say where the index to verify is and how to rebuild it.
type VerifyOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's only index.
	By string
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
	o := &Options{IndexPath: opts.IndexPath, By: opts.By}
	idxPath, err := o.locate(csvPath)
	if err != nil {
		return nil, err
	}
	// A missing main index is an error; a broken file is a difference. A
	// stale one needs no verdict: the rebuild over what it covers says how
	// it differs.
	ix := indexFiles(idxPath)
	files, err := ix.openFiles(csvPath, false)
	if err != nil {
		return nil, err
	}
	defer files.close()
	res := &VerifyResult{}
	switch {
	case files.mainIs == fileAbsent:
		return nil, files.mainWhy
	case files.mainIs == fileBroken:
		res.Differences = append(res.Differences, files.mainWhy.Error())
		return res, nil
	case files.tailIs == fileBroken:
		res.Differences = append(res.Differences, files.tailWhy.Error())
	}
	main, tail := files.main, files.tail

	csv, err := openCSV(csvPath, mapping.Sequential)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	for _, p := range []*part{main, tail} {
		if p == nil {
			continue
		}
		var extends *header // for the tail, the main index it extends
		if p == tail {
			extends = main.h
		}
		var fc *fenceCheck
		if p == main {
			fc = newFenceCheck(ix.fence)
			defer fc.close()
		}
		diffs, fresh, err := verifyPart(ctx, csv, p, extends, opts, fc)
		if err != nil {
			return nil, err
		}
		res.Differences = append(res.Differences, diffs...)
		if fc != nil && fresh != nil {
			diffs, notes := fc.report(main.h.generation, fresh.h.generation)
			res.Differences = append(res.Differences, diffs...)
			res.Notes = append(res.Notes, notes...)
		}
		res.BytesBehind = int64(len(csv.data)) - int64(p.h.scanned)
	}
	res.Equal = len(res.Differences) == 0
	return res, nil
}

// verifyPart rebuilds one index file (a tail when it extends a main index),
// over the CSV bytes it covers, and compares it with the file, and the fence
// it makes with fc (when not nil).
func verifyPart(ctx context.Context, csv *csvFile, p *part, extends *header, opts *VerifyOptions, fc *fenceCheck) ([]string, *built, error) {
	old := p.h
	if uint64(len(csv.data)) < old.scanned {
		return []string{fmt.Sprintf("%s shrank from %d to %d bytes since %s was built; rebuild the index",
			csv.path, old.scanned, len(csv.data), p.path)}, nil, nil
	}
	covered := *csv
	covered.data = csv.data[:old.scanned]
	p.m.Advise(mapping.Sequential) // the comparison reads the file from end to end
	sink := &compareSink{old: p.data}
	pl := &pipeline{csv: &covered, spec: specOf(old), main: extends, res: opts.Resources, flat: !old.dense(), progress: opts.Progress}
	if fc != nil {
		pl.fence = fc.add
	}
	fresh, err := pl.run(ctx, p.path, writerShape{}, sink) // the pages are compared, not written
	if err != nil {
		return nil, nil, err
	}
	diffs := sink.report(old, fresh.h)
	for i, d := range diffs {
		diffs[i] = filepath.Base(p.path) + ": " + d
	}
	return diffs, fresh, nil
}

// compareSink compares the pages of a fresh build with an index file.
type compareSink struct {
	old      []byte // the index file
	diffPage uint64 // the first record page (file page number) that differs, or 0
	diffNew  []byte // that page as the fresh build has it
}

func (c *compareSink) writePage(n uint64, page []byte) error {
	if n == 0 || c.diffPage != 0 {
		return nil
	}
	off := n * pageSize
	if off+pageSize > uint64(len(c.old)) || !bytes.Equal(c.old[off:off+pageSize], page) {
		c.diffPage, c.diffNew = n, bytes.Clone(page)
	}
	return nil
}

// report lists how the old index differs from the fresh build.
func (c *compareSink) report(old, fresh *header) []string {
	var out []string
	diff := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: the index says %v, a fresh build %v", name, a, b))
		}
	}
	diff("scanned bytes", old.scanned, fresh.scanned)
	diff("rows", old.rows, fresh.rows)
	diff("index records", old.records, fresh.records)
	diff("short rows", old.shortRows, fresh.shortRows)
	diff("blank lines", old.blanks, fresh.blanks)
	diff("resume offset", old.resume, fresh.resume)
	diff("header record end", old.headerEnd, fresh.headerEnd)
	diff("key name", fmt.Sprintf("%q", old.keyName), fmt.Sprintf("%q", fresh.keyName))
	diff("checksum of the first bytes", old.headChecksum, fresh.headChecksum)
	diff("checksum of the last bytes", old.tailChecksum, fresh.tailChecksum)
	if c.diffPage != 0 {
		out = append(out, c.pageDifference())
	}
	if len(out) == 0 {
		var page [pageSize]byte
		fresh.encode(page[:])
		if !bytes.Equal(c.old[:pageSize], page[:]) {
			out = append(out, "the header page differs")
		}
	}
	return out
}

// pageDifference describes the first differing record page.
func (c *compareSink) pageDifference() string {
	n := c.diffPage
	off := n * pageSize
	if off+pageSize > uint64(len(c.old)) {
		return fmt.Sprintf("the index ends before record page %d of the fresh build", n-1)
	}
	oldPage := c.old[off : off+pageSize]
	if !crcpage.Intact(oldPage) {
		return fmt.Sprintf("record page %d (bytes %d to %d) is corrupt: checksum mismatch", n-1, off, off+pageSize)
	}
	le := binary.LittleEndian
	recs := oldPage[:recordSize*min(int(le.Uint32(oldPage[pageLenOffset:])), recordsPerPage)]
	if n > 1 { // from the last record of the page before
		recs = append(bytes.Clone(c.old[off-pageSize+recordSize*(recordsPerPage-1):][:recordSize]), recs...)
	}
	if slot, ok := outOfOrder(recs); ok {
		if n > 1 {
			slot--
		}
		return fmt.Sprintf("record %d, on record page %d, does not come after the record before it: records must strictly increase", (n-1)*recordsPerPage+uint64(slot), n-1)
	}
	for slot := 0; slot < recordsPerPage; slot++ {
		o := slot * recordSize
		a, b := oldPage[o:o+recordSize], c.diffNew[o:o+recordSize]
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("record %d differs: the index has hash %016x at offset %d, a fresh build hash %016x at offset %d",
				(n-1)*recordsPerPage+uint64(slot), le.Uint64(a), le.Uint64(a[8:]), le.Uint64(b), le.Uint64(b[8:]))
		}
	}
	return fmt.Sprintf("record page %d differs in its trailer", n-1)
}
