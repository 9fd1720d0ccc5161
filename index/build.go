package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/sorter"
)

// BuildOptions say what to index and how. The zero value indexes nothing:
// Key is required.
type BuildOptions struct {
	// Key is the key column: a header field's name (exact, decoded) or,
	// when no header field has that name, a 0-based column number.
	Key string
	// NoHeader says the first record is data, not a header. Key must
	// then be a number.
	NoHeader bool
	// Delimiter separates fields; ',' when zero.
	Delimiter byte
	// IndexPath is where the index goes; CSVPATH.csvidx when empty.
	IndexPath string
	// Resources bound the build's memory and say where it may spill.
	Resources
	// NoWait fails at once, with ErrLocked, if another process is
	// writing the index, instead of waiting for it.
	NoWait bool
	// Progress, when set, is called now and then with the CSV bytes
	// scanned so far and the CSV's size.
	Progress func(done, total int64)
}

// spec is what defines an index's contents besides the CSV bytes.
type spec struct {
	delim  byte
	header bool
	keyCol int // resolved column, or -1 to resolve key by name
	key    string
	main   *header // for a tail: the main index it extends
	cols   int     // fields most records have, for guessing where chunks start (see guessStart); 0 unknown
}

func (o *BuildOptions) spec() (spec, error) {
	sp := spec{delim: o.Delimiter, header: !o.NoHeader, keyCol: -1, key: o.Key}
	if sp.delim == 0 {
		sp.delim = defaultDelim
	}
	if err := scan.CheckDelimiter(sp.delim); err != nil {
		return sp, err
	}
	return sp, nil
}

// Build indexes the CSV at csvPath and writes the index atomically: until
// Build returns successfully, the previous index (if any) is intact. A nil
// opts is the zero BuildOptions. It returns a description of the new index.
func Build(ctx context.Context, csvPath string, opts *BuildOptions) (*Info, error) {
	if opts == nil {
		opts = &BuildOptions{} // Key "" names a header field of that name, if there is one
	}
	sp, err := opts.spec()
	if err != nil {
		return nil, err
	}
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	idxPath := opts.IndexPath
	if idxPath == "" {
		idxPath = DefaultIndexPath(csvPath)
	}
	lock, err := lockIndex(csvPath, idxPath, opts.NoWait)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	csv, err := openCSV(csvPath, mapping.Sequential)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	csv.releaseAfterScan = true
	b, par, err := writeMain(ctx, csv, sp, idxPath, opts.Resources, opts.Progress)
	if err != nil {
		return nil, err
	}
	info := newInfo(csvPath, idxPath, b.h, int64(b.h.size()), int64(b.h.scanned))
	info.Build = par.buildStats()
	info.setState()
	if n, err := strconv.Atoi(opts.Key); err == nil && n != info.KeyColumn {
		info.KeyNote = fmt.Sprintf("the key %q is the name of column %d, which was taken, not column %d; for column %d, give its name from the header", opts.Key, info.KeyColumn, n, n)
	}
	return info, nil
}

// built is what building an index file made: its header.
type built struct {
	h *header
}

// writeMain builds a main index at idxPath, with its fence, and replaces
// what went with the old one: the tail is removed, the fence rewritten.
func writeMain(ctx context.Context, csv *csvFile, sp spec, idxPath string, res Resources, progress func(done, total int64)) (*built, *parallel, error) {
	fw, err := fence.Create(fencePath(idxPath), csv.perm)
	if err != nil {
		return nil, nil, fmt.Errorf("write the fence: %w", err)
	}
	defer fw.Abort()
	b, par, err := writeFile(ctx, csv, sp, idxPath, res, progress, fw.Add)
	if err != nil {
		return nil, nil, err
	}
	if err := removeDerived(idxPath); err != nil {
		return nil, nil, err
	}
	if err := fw.Commit(b.h.generation); err != nil {
		return nil, nil, fmt.Errorf("write the fence: %w", err)
	}
	return b, par, nil
}

// writeFile builds an index file (a main index, or a tail when sp.main is
// set) from csv and puts it at path atomically, handing the first hash of
// every record page to fence (when not nil).
func writeFile(ctx context.Context, csv *csvFile, sp spec, path string, res Resources, progress func(done, total int64), fence func(uint64) error) (*built, *parallel, error) {
	out, err := atomicfile.Create(path, true, csv.perm)
	if err != nil {
		return nil, nil, fmt.Errorf("create index: %w", err)
	}
	defer out.Abort()
	shape := res.writeShape()
	par, so := res.plan(path, shape, int64(len(csv.data)))
	sink, err := newFileSink(out, shape)
	if err != nil {
		return nil, nil, err
	}
	defer sink.close()
	b, err := buildInto(ctx, csv, sp, sink, par, so, progress, fence)
	if err != nil {
		return nil, nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", path, err)
	}
	return b, par, nil
}

// removeDerived removes the tail and the fence of a main index that was just
// replaced: they belong to the old one (readers would ignore them anyway, by
// generation).
func removeDerived(idxPath string) error {
	for _, p := range []string{tailPath(idxPath), fencePath(idxPath)} {
		if err := atomicfile.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return atomicfile.SyncDir(filepath.Dir(idxPath))
}

// buildInto scans the CSV, sorts its records and writes the index pages to
// sink. It is the whole build, shared by Build and Verify.
func buildInto(ctx context.Context, csv *csvFile, sp spec, sink pageSink, par *parallel, so sorter.Options, progress func(done, total int64), fence func(uint64) error) (*built, error) {
	srt := sorter.New(so)
	defer srt.Close()
	var h *header
	var w *pageWriter
	err := mapping.Guard(func() error {
		var err error
		if h, err = scanInto(ctx, csv, sp, par, srt, progress); err != nil {
			return err
		}
		w = newPageWriter(sink, fence)
		err = srt.Finish(func(batch []sorter.Record) error {
			if csv.releaseAfterScan {
				csv.release() // the sort has its buffers (see release); once, however often called
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			return w.add(batch)
		})
		if err != nil {
			return err
		}
		return w.finish(h)
	}, csv.m)
	if err == mapping.ErrFault {
		err = fmt.Errorf("%s: %w", csv.path, ErrChanged)
	}
	if err != nil {
		return nil, err
	}
	return &built{h: h}, nil
}

const (
	batchRecords  = 1 << 14  // records handed to the sorter at a time
	progressEvery = 64 << 20 // CSV bytes between progress reports and cancellation checks
)

// scanInto reads the records of the CSV and adds the keyed ones to srt: all
// of them for a main index, those from the main index's resume offset on
// for a tail (sp.main set). It returns the header of the index, short of
// what only the writer knows.
func scanInto(ctx context.Context, csv *csvFile, sp spec, par *parallel, srt *sorter.Sorter, progress func(done, total int64)) (*header, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data := csv.data
	var h *header
	var start int
	if sp.main != nil {
		h, start = tailHeader(sp.main, len(data))
	} else {
		var err error
		if h, start, err = mainHeader(csv, &sp); err != nil {
			return nil, err
		}
	}
	h.scanned = uint64(len(data))
	h.headChecksum, h.tailChecksum = fingerprint(data)
	sp.keyCol = int(h.keyCol)

	t, stats, err := scanRecords(ctx, csv, start, sp, par, srt, progress)
	if err != nil {
		return nil, err
	}
	par.stats = stats
	if sp.main == nil && t.rows > 0 && t.short == t.rows {
		return nil, noKeyColumn(csv, sp, h)
	}
	h.rows, h.shortRows, h.blanks = t.rows, t.short, h.blanks+t.blanks
	h.resume = uint64(len(data))
	if t.resume >= 0 {
		h.resume = uint64(t.resume)
	}
	if sp.main == nil && h.headerEnd > 0 && data[h.headerEnd-1] != '\n' {
		h.resume = h.headerStart // an unterminated header: the next scan starts over
	}
	if progress != nil {
		progress(int64(len(data)), int64(len(data)))
	}
	return h, nil
}

// mainHeader starts the header of a main index: it finds the CSV's header
// record, if it has one, and resolves the key column. It returns where the
// data records start.
func mainHeader(csv *csvFile, sp *spec) (*header, int, error) {
	data := csv.data
	h := &header{delim: sp.delim}
	start := 0
	var fields [][]byte
	found := false
	if sp.header {
		h.flags |= flagHeader
		hs, err := scan.New(data, sp.delim, 0)
		if err != nil {
			return nil, 0, err
		}
		if found = hs.Next(); found {
			var end int
			fields, end, _ = scan.Fields(data, hs.Start(), sp.delim)
			h.headerStart, h.headerEnd = uint64(hs.Start()), uint64(end)
			h.blanks = uint64(hs.Blanks())
			start = end
		}
	}
	if err := checkTerminators(csv, sp.delim, h); err != nil {
		return nil, 0, err
	}
	if sp.keyCol < 0 {
		col, err := resolveKey(sp.key, fields, found)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", csv.path, err)
		}
		sp.keyCol = col
	}
	if sp.keyCol < len(fields) {
		h.keyName = fields[sp.keyCol]
	}
	h.keyCol = uint32(sp.keyCol)
	return h, start, nil
}

// noKeyColumn is the error for a build in which no row has the key column:
// a column number beyond the rows' fields, or the wrong delimiter.
func noKeyColumn(csv *csvFile, sp spec, h *header) error {
	what := "no header"
	if h.headerEnd > 0 {
		fields, _, _ := scan.Fields(csv.data, int(h.headerStart), sp.delim)
		what = "the header has " + describeFields(fields)
	}
	return fmt.Errorf("%s: %w %d (%s; delimiter %q); give a column that exists, or the file's delimiter",
		csv.path, ErrNoKeys, sp.keyCol, what, string([]byte{sp.delim}))
}

// tailHeader starts the header of a tail that extends main: same dialect,
// key and CSV header record, covering the CSV from where main stops.
func tailHeader(main *header, size int) (*header, int) {
	return &header{
		flags: main.flags | flagTail, delim: main.delim, keyCol: main.keyCol, keyName: main.keyName,
		headerStart: main.headerStart, headerEnd: main.headerEnd,
		parent: main.generation, base: main.resume,
	}, int(main.resume)
}

// ErrLineEnds means the CSV's lines end with a lone carriage return, which
// this dialect reads as data: the file would be one huge record.
var ErrLineEnds = errors.New("lines end with a lone carriage return")

// checkTerminators refuses a CSV whose first record (the header h found,
// else the first data record) holds a carriage return outside quotes with
// no newline after it: its lines most likely end with a lone CR, and the
// whole file would read as one record, which no silent one-record index
// may hide.
func checkTerminators(csv *csvFile, delim byte, h *header) error {
	data := csv.data
	start, end := int(h.headerStart), int(h.headerEnd)
	if end == 0 {
		s, err := scan.New(data, delim, 0)
		if err != nil || !s.Next() {
			return err
		}
		start, end = s.Start(), s.End()
	}
	i := scan.LoneCR(data, start, end, delim)
	if i < 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: its first record holds a carriage return (\\r) with no newline after it, at byte %d, "+
		"as in files from classic Mac OS and old Excel; csvidx reads records that end with \\n or \\r\\n: "+
		"convert the line ends first, for example with tr '\\r' '\\n' < %s > converted.csv",
		csv.path, ErrLineEnds, i, shellQuote(csv.path))
}

// resolveKey finds the key column: the header field equal to key, else key
// read as a 0-based column number. found says whether the CSV has a header
// record to look in; fields are its fields. A name that two header fields
// have is an error.
func resolveKey(key string, fields [][]byte, found bool) (int, error) {
	for i, f := range fields {
		if string(f) != key {
			continue
		}
		for j := i + 1; j < len(fields); j++ {
			if string(fields[j]) == key {
				return 0, fmt.Errorf("%w %q: the header has it twice, as columns %d and %d; give the 0-based column number instead", ErrAmbiguousColumn, key, i, j)
			}
		}
		return i, nil
	}
	if n, err := strconv.Atoi(key); err == nil && n >= 0 && n <= maxColumn {
		return n, nil
	}
	if found {
		return 0, fmt.Errorf("%w %q: the header has %s; give a name or a 0-based number", ErrColumn, key, describeFields(fields))
	}
	return 0, fmt.Errorf("%w %q: there is no header to look it up in; give a 0-based column number", ErrColumn, key)
}

const maxColumn = 1<<31 - 1 // the largest key column the format stores

// describeFields lists header fields for an error message, eliding the
// middle of long headers.
func describeFields(fields [][]byte) string {
	const show = 8 // fields named in full
	names := make([]string, 0, show+1)
	for i, f := range fields {
		if len(fields) > show && i >= show/2 && i < len(fields)-show/2 {
			if i == show/2 {
				names = append(names, "...")
			}
			continue
		}
		names = append(names, strconv.Quote(string(f)))
	}
	return fmt.Sprintf("%d columns: %s", len(fields), strings.Join(names, ", "))
}
