package index

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
)

// BuildOptions say what to index and how. The zero value indexes nothing:
// Key is required.
type BuildOptions struct {
	// Key is the key spec: its columns as one CSV record, comma-separated
	// whatever the file's delimiter ("user_id", or "user_id,status" for a
	// composite key), each a header field's name (exact, decoded) or, when
	// no header field has that name, a 0-based column number.
	Key string
	// NoHeader says the first record is data, not a header. Key's columns
	// must then be numbers.
	NoHeader bool
	// Delimiter separates fields; when zero, the CSV's default delimiter
	// by its name (see [DefaultDelimiter]): a tab for .tsv and .tab, else ','.
	Delimiter byte
	// IndexPath is where the index goes; CSVPATH.csvidx when empty.
	IndexPath string
	// IndexDir, when set, is the directory the CSV's indexes live in
	// instead of next to it (see [HomeOf]); IndexPath wins over it.
	IndexDir string
	// Resources bound the build's memory and say where it may spill.
	Resources
	// NoWait fails at once, with ErrLocked, if another process is
	// writing the index, instead of waiting for it.
	NoWait bool
	// Progress, when set, is called now and then with the CSV bytes
	// scanned so far and the CSV's size.
	Progress func(done, total int64)
	// GzipSpan, for a CSV in plain gzip, is how many plain bytes the
	// index's checkpoints are apart, at least (0: 1 MiB): a lookup
	// inflates up to a span, and the index keeps about 8 KB a checkpoint.
	// Updates and verify keep the index's.
	GzipSpan int64
	// PlainFrom, for a compressed CSV, names a plain file that holds its
	// plain bytes, the one it was compressed from (csvidx compress
	// --key): the build scans them there instead of decoding the CSV. Its
	// size must be the CSV's plain size; that its bytes are the same is
	// the caller's word.
	PlainFrom string
}

// spec is the dialect and the key of an index: with the CSV's bytes, what
// defines its contents.
type spec struct {
	delim   byte
	header  bool   // the first record is a header
	keyCols []int  // the key's columns, or nil to resolve key
	key     string // the key spec, as given (see keyspec.go)
}

// specOf returns the spec an index was built with, from its header.
func specOf(h *format.Header) spec {
	return spec{delim: h.Delim, header: h.Flags&format.FlagHeader != 0, keyCols: h.KeyColumns()}
}

// spec returns the spec the options give for the CSV at csvPath.
func (o *BuildOptions) spec(csvPath string) (spec, error) {
	sp := spec{delim: o.Delimiter, header: !o.NoHeader, key: o.Key}
	if sp.delim == 0 {
		sp.delim = DefaultDelimiter(csvPath)
	}
	if err := scan.CheckDelimiter(sp.delim); err != nil {
		return sp, err
	}
	return sp, nil
}

// Build indexes the CSV at csvPath by opts.Key and writes the index
// atomically: until Build returns successfully, the previous index (if
// any) is intact. The index goes to opts.IndexPath or, when that is empty,
// where the file's indexes go (see [BuildIndexes]). A nil opts is the zero
// BuildOptions. It returns a description of the new index.
func Build(ctx context.Context, csvPath string, opts *BuildOptions) (_ *Info, err error) {
	if opts == nil {
		opts = &BuildOptions{} // Key "" names a header field of that name, if there is one
	}
	infos, err := BuildIndexes(ctx, csvPath, []string{opts.Key}, opts)
	if err != nil {
		return nil, err
	}
	return infos[0], nil
}

// mainHeader starts the header of a main index: it finds the CSV's header
// record, if it has one, and resolves the key column. It returns where the
// data records start.
func mainHeader(csv *csvFile, sp *spec) (*format.Header, int, error) {
	data := csv.head
	h := &format.Header{Delim: sp.delim}
	start := 0
	var fields [][]byte
	found := false
	if sp.header {
		h.Flags |= format.FlagHeader
		hs, err := scan.New(data, sp.delim, 0)
		if err != nil {
			return nil, 0, err
		}
		hs.LimitOne()
		if found = hs.Next(); found {
			var end int
			fields, end, _ = scan.Fields(data, hs.Start(), sp.delim)
			h.HeaderStart, h.HeaderEnd = uint64(hs.Start()), uint64(end)
			h.Blanks = uint64(hs.Blanks())
			start = end
		}
	}
	if err := checkTerminators(csv, sp.delim, h); err != nil {
		return nil, 0, err
	}
	if sp.keyCols == nil {
		cols, err := keyspec.Resolve(sp.key, fields, found, sp.delim)
		if err != nil {
			return nil, 0, err // Build names the CSV
		}
		sp.keyCols = cols
	}
	h.SetKey(sp.keyCols, fields)
	return h, start, nil
}

// noKeyColumn is the error for a build in which no row has the key column:
// a column number beyond the rows' fields, or the wrong delimiter.
func noKeyColumn(csv *csvFile, delim byte, h *format.Header) error {
	what := "no header"
	var fields [][]byte
	if h.HeaderEnd > 0 {
		fields, _, _ = scan.Fields(csv.head, int(h.HeaderStart), delim)
		what = "the header has " + keyspec.Describe(fields)
	}
	if h.Flags&format.FlagComposite != 0 {
		return keyspec.OrDelimiter(fmt.Errorf("%w: no row has all of the columns %s (%s; delimiter %q)",
			ErrNoKeys, strings.ReplaceAll(keyspec.Spec(h.KeyColumns()), ",", ", "), what, string([]byte{delim})),
			fields, delim, "give columns that exist, or the file's delimiter")
	}
	return keyspec.OrDelimiter(fmt.Errorf("%w %d (%s; delimiter %q)", ErrNoKeys, h.KeyCol, what, string([]byte{delim})),
		fields, delim, "give a column that exists, or the file's delimiter")
}

// tailHeader starts the header of a tail that extends main: same dialect,
// key and CSV header record, covering the CSV from where main stops.
func tailHeader(main *format.Header, size int) (*format.Header, int) {
	return &format.Header{
		Flags: main.Flags | format.FlagTail, Delim: main.Delim, KeyCol: main.KeyCol, KeyName: main.KeyName, KeyCols: main.KeyCols,
		HeaderStart: main.HeaderStart, HeaderEnd: main.HeaderEnd,
		Parent: main.Generation, Base: main.Resume,
	}, int(main.Resume)
}

// ErrLineEnds means the CSV's lines end with a lone carriage return, which
// this dialect reads as data: the file would be one huge record.
var ErrLineEnds = errors.New("lines end with a lone carriage return")

// checkTerminators refuses a CSV whose first record (the header h found,
// else the first data record) holds a carriage return outside quotes with
// no newline after it: its lines most likely end with a lone CR, and the
// whole file would read as one record, which no silent one-record index
// may hide.
func checkTerminators(csv *csvFile, delim byte, h *format.Header) error {
	data := csv.head
	start, end := int(h.HeaderStart), int(h.HeaderEnd)
	if end == 0 {
		s, err := scan.New(data, delim, 0)
		if err != nil {
			return err
		}
		if s.LimitOne(); !s.Next() {
			return err
		}
		start, end = s.Start(), s.End()
	}
	if i := scan.LoneCR(data, start, end, delim); i >= 0 {
		return LineEndsError(i) // Build names the CSV
	}
	return nil
}

// LineEndsError is the error for a first record that holds a lone carriage
// return at offset i (see checkTerminators).
func LineEndsError(i int) error {
	return fmt.Errorf("%w: its first record holds a carriage return (\\r) with no newline after it, at byte %d, "+
		"as in files from classic Mac OS and old Excel; csvidx reads records that end with \\n or \\r\\n: "+
		"convert the line ends first", ErrLineEnds, i)
}
