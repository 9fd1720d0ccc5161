package index

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/csvidx/csvidx/fence"
	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/source"
)

// Info describes an index file and how it relates to its CSV now.
type Info struct {
	CSVPath    string `json:"csv"`
	IndexPath  string `json:"index"`
	IndexBytes int64  `json:"index_bytes"`
	// Default says that this index is the one a call that picks none
	// (no --by, no --index) uses: see [Locate].
	Default    bool   `json:"default"`
	Version    int    `json:"format_version"`
	Generation string `json:"generation"`
	// FingerprintBits is F, the bits of the key's hash a format 2 index
	// keeps (0 in format 1, which keeps all 64).
	FingerprintBits int `json:"fingerprint_bits,omitempty"`
	// BytesPerRow is the main index's size over the rows it indexes (0
	// without rows).
	BytesPerRow float64 `json:"bytes_per_row"`

	KeyColumn int    `json:"key_column"`         // 0-based; a composite key's first
	KeyName   string `json:"key_name,omitempty"` // the header field of the key column; for a composite key, its columns' as one CSV record
	// KeyColumns are a composite key's columns, 0-based, in the key's
	// order; nil for a key of one column.
	KeyColumns []int  `json:"key_columns,omitempty"`
	Header     bool   `json:"header"`               // the CSV's first record is a header
	Delimiter  string `json:"delimiter"`            // one byte
	HeaderEnd  int64  `json:"header_end,omitempty"` // where the data records start

	Rows       int64 `json:"rows"`        // data records read
	Records    int64 `json:"records"`     // index records: rows with a key
	ShortRows  int64 `json:"short_rows"`  // rows too short to have the key column
	BlankLines int64 `json:"blank_lines"` // blank lines, not records

	ScannedBytes int64 `json:"scanned_bytes"` // CSV bytes read when the index was built
	ResumeOffset int64 `json:"resume_offset"` // where the next scan of appended rows starts
	Unterminated bool  `json:"unterminated"`  // the last row read had no terminator
	CSVBytes     int64 `json:"csv_bytes"`     // the CSV's size now (its plain bytes, for a compressed one)
	// Compression names the backend that reads a compressed CSV ("bgzf",
	// "zstd"), "" for a plain one; FileBytes is then the compressed file's
	// size when the index was built, TableBytes its frame table's in the
	// index.
	Compression string `json:"compression,omitempty"`
	FileBytes   int64  `json:"file_bytes,omitempty"`
	TableBytes  int64  `json:"table_bytes,omitempty"`
	BytesBehind int64  `json:"bytes_behind"`    // CSV bytes appended since, not indexed (of a compressed CSV, the file's bytes, not decoded)
	Stale       string `json:"stale,omitempty"` // why the index cannot be used, if it cannot
	// State is "fresh" (the index covers the whole CSV), "behind" (rows
	// were appended since: update indexes them), "stale" (see Stale) or,
	// from ReadInfoAll only, "broken" (see Error).
	State string `json:"state"`
	// StaleError is the error Stale is the message of, for a front end
	// to word its own fix; nil when Stale is "".
	StaleError *RebuildError `json:"-"`
	// Error says why the index cannot be read at all when State is
	// "broken" (from ReadInfoAll only): then only CSVPath, IndexPath,
	// Default and State are set, and only they and Error are in its JSON.
	Error string `json:"error,omitempty"`
	// BrokenError is the error Error is the message of, for a front end
	// to word its own fix; nil unless State is "broken".
	BrokenError *RebuildError `json:"-"`

	Fence        string `json:"fence"`                   // the fence file
	FenceIgnored string `json:"fence_ignored,omitempty"` // why lookups search the index without it, if they do

	// KeyNote, from Build only, says that the key, a number, was taken as
	// the name of a header field, not as that column's number.
	KeyNote string `json:"key_note,omitempty"`

	Tail  *TailInfo   `json:"tail,omitempty"`  // rows appended and indexed by update
	Build *BuildStats `json:"build,omitempty"` // how the build went, from Build only
}

// TailInfo describes the tail: the index of rows appended after the main
// index was built, which lookups read after the main index.
type TailInfo struct {
	Path         string `json:"path"`
	Bytes        int64  `json:"bytes"`
	BaseOffset   int64  `json:"base_offset"`   // the first CSV byte it covers: where the main index stops
	Rows         int64  `json:"rows"`          // rows it covers
	Records      int64  `json:"records"`       // rows with a key
	ShortRows    int64  `json:"short_rows"`    // rows too short to have the key column
	ScannedBytes int64  `json:"scanned_bytes"` // the CSV's size when it was made
}

// addTail describes tail in info and makes the coverage figures its own.
func (info *Info) addTail(tail *part) {
	if tail == nil {
		return
	}
	h := tail.h
	info.Tail = &TailInfo{Path: tail.path, Bytes: int64(len(tail.data)), BaseOffset: int64(h.Base),
		Rows: int64(h.Rows), Records: int64(h.Records), ShortRows: int64(h.ShortRows), ScannedBytes: int64(h.Scanned)}
	info.ResumeOffset = int64(h.Resume)
	info.Unterminated = h.Resume < h.Scanned
	info.BytesBehind = max(0, info.CSVBytes-int64(h.Scanned))
	if s := h.Source; s != nil { // the file as the update that wrote the tail found it
		info.FileBytes, info.TableBytes = int64(s.Size), int64(s.TableLen())
	}
}

// BuildStats says how a build went. Nothing in it changes the index.
type BuildStats struct {
	Threads int `json:"threads"`  // workers of the scan and the sort
	Chunks  int `json:"chunks"`   // pieces the CSV was scanned in
	Repairs int `json:"repairs"`  // chunks whose guessed start was wrong and were scanned again
	Skipped int `json:"skipped"`  // chunks inside one record (a field of megabytes): no record starts in them
	Full    int `json:"full"`     // chunks of rows too short for their share of memory (under 8 bytes on average), finished sequentially
	InOrder int `json:"in_order"` // chunks no worker scanned, left to the sequential stitcher: it was scanning itself, or too many guesses had failed
}

func newInfo(csvPath, idxPath string, h *format.Header, idxSize, csvSize int64) *Info {
	perRow := 0.0
	if h.Rows > 0 {
		perRow = math.Round(float64(idxSize)/float64(h.Rows)*1000) / 1000
	}
	info := &Info{
		BytesPerRow:     perRow,
		CSVPath:         csvPath,
		IndexPath:       idxPath,
		IndexBytes:      idxSize,
		Version:         int(h.FormatVersion()),
		FingerprintBits: int(h.FPBits),
		Generation:      fmt.Sprintf("%016x", h.Generation),
		KeyColumn:       int(h.KeyCol),
		KeyName:         string(h.KeyName),
		KeyColumns:      h.CompositeColumns(),
		Header:          h.Flags&format.FlagHeader != 0,
		Delimiter:       string([]byte{h.Delim}),
		HeaderEnd:       int64(h.HeaderEnd),
		Rows:            int64(h.Rows),
		Records:         int64(h.Records),
		ShortRows:       int64(h.ShortRows),
		BlankLines:      int64(h.Blanks),
		ScannedBytes:    int64(h.Scanned),
		ResumeOffset:    int64(h.Resume),
		Unterminated:    h.Resume < h.Scanned,
		CSVBytes:        csvSize,
		BytesBehind:     max(0, csvSize-int64(h.Scanned)),
	}
	if s := h.Source; s != nil {
		info.Compression, info.FileBytes, info.TableBytes = s.Backend, int64(s.Size), int64(s.TableLen())
	}
	return info
}

// ReadInfo describes the index of the CSV at csvPath without refusing a
// stale one: Info.Stale says why it could not be used. A broken or missing
// index file is an error.
func ReadInfo(csvPath string, opts *Options) (_ *Info, err error) {
	idxPath, err := opts.locate(csvPath)
	if err != nil {
		return nil, err
	}
	defer namePath(&err, csvPath, idxPath)
	ix := indexFiles(idxPath)
	o, err := ix.openFiles(csvPath, true)
	if err != nil {
		return nil, err
	}
	defer o.close()
	if o.mainIs == fileAbsent || o.mainIs == fileBroken || o.tailIs == fileBroken {
		return nil, cmp.Or(o.mainWhy, o.tailWhy)
	}
	src, grown, changed, err := openForInfo(csvPath, o) // after the index files: the CSV only grows
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if changed != nil { // a compressed file that is not the one indexed
		o.mainIs, o.mainWhy = fileStale, changed
	} else if err := o.judgeOpened(sourcePart(o.main, o.tail), src, src.Size()); err != nil {
		return nil, err
	}
	info := newInfo(csvPath, idxPath, o.main.h, int64(len(o.main.data)), src.Size())
	info.Fence, info.FenceIgnored = ix.fence, fenceIgnored(ix.fence, o.fenceWhy)
	var stale error
	switch {
	case o.mainIs == fileStale:
		stale = o.mainWhy
	case o.tail != nil:
		info.addTail(o.tail)
		if o.tailIs == fileStale {
			stale = o.tailWhy
		}
	}
	if stale != nil {
		info.Stale = stale.Error()
		errors.As(stale, &info.StaleError)
	}
	info.BytesBehind += grown
	info.setState()
	if h, err := opts.home(csvPath); err == nil {
		info.Default = h.isDefault(idxPath)
	}
	return info, nil
}

// ReadInfoAll describes every index of the CSV at csvPath (see [Indexes])
// as ReadInfo does, or the one opts names. An index of several that cannot
// be read at all (a broken or missing file, a *RebuildError) is described
// as "broken" with its error, so that the others are still described; a
// front end reports the error too. A CSV without an index, an index that
// opts names and cannot be read, and what stops every index (an unreadable
// CSV) are errors.
func ReadInfoAll(csvPath string, opts *Options) (_ []*Info, err error) {
	if opts == nil {
		opts = &Options{}
	}
	if opts.IndexPath != "" || opts.By != "" {
		info, err := ReadInfo(csvPath, opts)
		if err != nil {
			return nil, err
		}
		return []*Info{info}, nil
	}
	defer namePath(&err, csvPath, "")
	h, err := opts.home(csvPath)
	if err != nil {
		return nil, err
	}
	paths, err := h.Indexes()
	if err != nil {
		return nil, err
	}
	if len(paths) < 2 {
		info, err := ReadInfo(csvPath, opts)
		if err != nil {
			return nil, err
		}
		return []*Info{info}, nil
	}
	infos := make([]*Info, len(paths))
	for i, path := range paths {
		info, err := ReadInfo(csvPath, &Options{IndexPath: path, IndexDir: opts.IndexDir})
		var rebuild *RebuildError
		switch {
		case errors.As(err, &rebuild):
			info = &Info{CSVPath: csvPath, IndexPath: path, State: "broken", Error: err.Error(), BrokenError: rebuild}
			info.Default = h.isDefault(path)
		case err != nil:
			return nil, err
		}
		infos[i] = info
	}
	return infos, nil
}

// MarshalJSON writes info as its fields say, and a broken index's as what
// is known of it: its CSV, path, whether it is the default, its state and
// its error.
func (info Info) MarshalJSON() ([]byte, error) {
	type plain Info // without this method
	if info.State != "broken" {
		return json.Marshal(plain(info))
	}
	return json.Marshal(struct {
		CSVPath   string `json:"csv"`
		IndexPath string `json:"index"`
		Default   bool   `json:"default"`
		State     string `json:"state"`
		Error     string `json:"error"`
	}{info.CSVPath, info.IndexPath, info.Default, info.State, info.Error})
}

// setState sets State from Stale and BytesBehind.
func (info *Info) setState() {
	switch {
	case info.Stale != "":
		info.State = "stale"
	case info.BytesBehind > 0:
		info.State = "behind"
	default:
		info.State = "fresh"
	}
}

// fenceIgnored says why lookups search the index without the fence at
// path, given why it could not be opened: "" when it could.
func fenceIgnored(path string, why error) string {
	switch {
	case why == nil:
		return ""
	case errors.Is(why, fs.ErrNotExist):
		return "missing"
	}
	s := strings.TrimPrefix(why.Error(), fence.ErrUnusable.Error()+": ")
	return strings.TrimPrefix(s, path+": ")
}

// openForInfo opens the CSV of the index files o for ReadInfo: through the
// table of the source section of their source part when it has one (see
// sourcePart and openTabled, whose grown and changed it returns), else with
// source.Open.
func openForInfo(csvPath string, o *opened) (src source.Source, grown int64, changed, err error) {
	p := sourcePart(o.main, o.tail)
	if p.h.Source == nil {
		src, err = source.Open(csvPath, mapping.Random)
		return src, 0, nil, err
	}
	table, err := p.table()
	if err != nil {
		return nil, 0, nil, err
	}
	return openTabled(csvPath, p, table)
}
