package join

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
)

// Mode says which rows a join prints.
type Mode int

// The join modes, as xsv and qsv name them; RightSemi and RightAnti as
// DuckDB and polars do.
const (
	Inner     Mode = iota // each LEFT row with each matching RIGHT row
	Left                  // and each LEFT row without a match, with RIGHT's fields empty
	Semi                  // each LEFT row that has a match, verbatim
	Anti                  // each LEFT row that has none, verbatim
	Right                 // inner, then each RIGHT row no LEFT row matched, with LEFT's fields empty
	Full                  // left, then each RIGHT row no LEFT row matched
	RightSemi             // each RIGHT row some LEFT row matched, once, verbatim, after LEFT ends
	RightAnti             // each RIGHT row no LEFT row matched, verbatim, after LEFT ends
)

// keepsRight reports whether m keeps a bitmap of the RIGHT rows that LEFT
// rows matched, and goes through RIGHT once LEFT has ended.
func (m Mode) keepsRight() bool { return m == Right || m == Full || m == RightSemi || m == RightAnti }

// oneSide reports whether m prints the rows of one side only, verbatim.
func (m Mode) oneSide() bool { return m == Semi || m == Anti || m == RightSemi || m == RightAnti }

// Options say how to join a stream of CSV records, LEFT, with an
// indexed CSV, RIGHT.
type Options struct {
	// Mode is which rows to print.
	Mode Mode
	// Key is LEFT's key: a key spec, as [BuildOptions].Key, resolved
	// against LEFT's header (or column numbers with NoHeader).
	Key string
	// RightKey picks RIGHT's index by its key spec, resolved against
	// RIGHT's header, as [Options].By; empty means Key.
	RightKey string
	// RightIndex, when set, is RIGHT's index file, as [Options].IndexPath;
	// RightKey is then not used.
	RightIndex string
	// RightIndexDir, when set, is the directory RIGHT's indexes live in,
	// as [Options].IndexDir.
	RightIndexDir string
	// Delimiter separates LEFT's fields and the output's; 0 means ','.
	Delimiter byte
	// NoHeader says LEFT has no header record: its first record is data,
	// and the output has no header either.
	NoHeader bool
	// Nulls makes a LEFT key whose fields are all empty match as any
	// other; by default it matches nothing, as in xsv, qsv and SQL.
	Nulls bool
	// PrefixLeft and PrefixRight are put before each header name of LEFT
	// and of RIGHT.
	PrefixLeft, PrefixRight string
	// Coalesce prints the key once, as SQL's USING does: RIGHT's key
	// columns are left out of the output, its header and every row. A
	// RIGHT row that no LEFT row matched (Right, Full) keeps its key in
	// LEFT's key columns, the rest of LEFT's fields empty. It takes a mode
	// that prints both sides: not Semi, Anti, RightSemi or RightAnti. With
	// an empty LEFT (not even a header), RIGHT's rows are printed whole.
	Coalesce bool
	// ReadAhead says when the join asks the kernel to read all of RIGHT
	// and its index (see JoinReadAhead).
	ReadAhead ReadAhead
	// Resources bound the join: Threads is its workers (0: one per core);
	// MemLimit bounds the bitmap of RIGHT's rows that Right, Full,
	// RightSemi and RightAnti keep, beyond which it lives in a temporary
	// file in TmpDir (default: the directory of RIGHT's index). The join's
	// other memory is a few MiB per worker, whatever the files' sizes.
	Resources index.Resources
	// OpenRight, when set, opens RIGHT's index in place of index.Open: the
	// remote build opens a remote RIGHT's remote index (see package
	// remoteindex), whose pages and rows each batch of LEFT's keys fetches
	// first, in two round trips (index.Rows.Prefetch).
	OpenRight func(rightPath string, o *index.Options) (*index.Index, error)
}

// ReadAhead says when a join reads RIGHT and its index ahead, in big
// sequential reads, instead of page by page as its lookups touch them.
type ReadAhead int

const (
	// ReadAheadAuto reads ahead once the join has made as many lookups as
	// readAheadShare of RIGHT's and its index's pages: past that point,
	// lookups on a cold cache would read more, one random page at a time,
	// than reading the files in order does.
	ReadAheadAuto   ReadAhead = iota
	ReadAheadNever            // never: each lookup reads the pages it touches
	ReadAheadAlways           // at once, from the start of the join
)

// A Join is one join of a stream of CSV records, LEFT, with an indexed
// CSV, RIGHT (see [Join.Run]). It holds RIGHT's index open.
type Join struct {
	opts  Options
	delim byte // LEFT's and the output's
	ix    *index.Index
	right struct {
		delim            byte
		fields           int      // in RIGHT's header, or its first record
		names            [][]byte // the header's decoded names, or nil
		header           []byte   // the header record as written, or nil
		headerTerminated bool     // it ends with its terminator
		start            int      // where RIGHT's first data record starts
	}
	rs       *scan.Stream
	leftInfo fs.FileInfo // what LEFT is, when it is a file (see CheckOutput)
	first    []byte      // LEFT's first record, when it is its header
	firstEnd bool        // it ends with its terminator
	names    [][]byte    // LEFT's header names
	cols     []int       // LEFT's key columns; nil for an empty LEFT
	run      *joinRun
}

// New reads LEFT's header from left, resolves LEFT's key, and opens
// RIGHT's index: the one opts.RightIndex names, else RIGHT's index by
// opts.RightKey, else by the names LEFT's header gives the key's columns
// (their numbers with opts.NoHeader).
func New(left io.Reader, rightPath string, opts *Options) (_ *Join, err error) {
	j := &Join{opts: *opts, delim: opts.Delimiter, leftInfo: leftFileInfo(left)}
	if j.delim == 0 {
		j.delim = format.DefaultDelim
	}
	if err := scan.CheckDelimiter(j.delim); err != nil {
		return nil, err
	}
	if j.opts.Mode < Inner || j.opts.Mode > RightAnti {
		return nil, fmt.Errorf("join mode %d", j.opts.Mode)
	}
	if j.opts.Coalesce && j.opts.Mode.oneSide() {
		return nil, ErrCoalesceOneSide
	}
	if err := j.opts.Resources.Validate(); err != nil {
		return nil, err
	}
	if err := j.readLeftHeader(left); err != nil {
		return nil, err
	}
	by := j.opts.RightKey
	if by == "" && j.opts.RightIndex == "" {
		by = j.opts.Key // for an empty LEFT
		if j.cols != nil {
			by = index.KeyDefinition(j.cols, j.names).Key()
		}
	}
	open := j.opts.OpenRight
	if open == nil {
		open = index.Open
	}
	ix, err := open(rightPath, &index.Options{IndexPath: j.opts.RightIndex, By: by, IndexDir: j.opts.RightIndexDir})
	if (errors.Is(err, index.ErrNoIndex) || errors.Is(err, index.ErrColumn)) && j.opts.RightIndex == "" {
		e := &NoIndexError{Right: rightPath, Key: by, Err: err}
		e.explain()
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	j.ix = ix
	if err := ix.Guard(j.readRightHeader); err != nil {
		ix.Close()
		return nil, err
	}
	if n := len(ix.KeyColumns()); j.cols != nil && len(j.cols) != n {
		ix.Close()
		return nil, fmt.Errorf("%w: %q is %s of the left file, and the index of %s is by %d (%s)",
			ErrLeftKey, j.opts.Key, columns(len(j.cols)), rightPath, n, ix.Definition().Key())
	}
	return j, nil
}

// LeftKeyError means a column of LEFT's key is past the fields of LEFT's
// first record: its header, or with NoHeader its first row. Most often
// LEFT is separated by another delimiter than the one the join was given.
type LeftKeyError struct {
	Key    string   // the key spec
	Column int      // the column past the fields
	Fields [][]byte // the first record's fields
	Header bool     // the first record is LEFT's header
	Delim  byte     // the delimiter LEFT was read with
}

func (e *LeftKeyError) Error() string {
	what := "first row"
	if e.Header {
		what = "header"
	}
	return fmt.Sprintf("the left file's key: column %d of %q does not exist: its %s has %s (delimiter %q)",
		e.Column, e.Key, what, keyspec.Describe(e.Fields), string([]byte{e.Delim}))
}

// NoIndexError means RIGHT has no index by the join's key.
type NoIndexError struct {
	Right string // RIGHT's path
	Key   string // the key spec of the index the join needs
	Err   error  // what Open said
	// NoColumn says RIGHT's header has no column Key names either (see
	// rightkey.go), so no index by Key can be built: RIGHT's key columns
	// must be given (RightKey). Column is the first of Key's columns that
	// the header lacks; Header lists the header's columns, as
	// "2 columns: "uid", "name""; empty when RIGHT has no header.
	NoColumn bool
	Column   string
	Header   string
	// Delimiter, when not 0, is the delimiter RIGHT's header, one column
	// as read by default, seems to hold: a build of the index needs it.
	Delimiter byte
}

func (e *NoIndexError) Error() string {
	msg := fmt.Sprintf("%s has no index by %s, which the join needs", e.Right, e.Key)
	switch {
	case e.NoColumn && e.Header != "":
		msg += fmt.Sprintf(", and its header has no such column %q (it has %s)", e.Column, e.Header)
	case e.NoColumn:
		msg += fmt.Sprintf(", and it has no header to find the column %q in", e.Column)
	}
	return msg
}

func (e *NoIndexError) Unwrap() error { return e.Err }

// readLeftHeader reads LEFT's first record, its header unless
// opts.NoHeader, and resolves LEFT's key against it.
func (j *Join) readLeftHeader(left io.Reader) error {
	j.rs = scan.NewStream(left, func(s *scan.Scanner, data []byte) error { return s.Init(data, j.delim, 0) })
	more, err := j.rs.Next()
	if err != nil {
		return fmt.Errorf("the left file: %w", err)
	}
	var fields [][]byte
	if more {
		first := j.rs.Record() // from the stream's first byte: it holds a magic whole
		if format := source.Compression(first); format != "" {
			return &source.CompressedError{Path: "the left file", Stream: true, Format: format}
		}
		if i := scan.LoneCR(first, 0, len(first), j.delim); i >= 0 {
			return fmt.Errorf("the left file: %w", index.LineEndsError(i))
		}
		fields, _, _ = scan.Fields(first, 0, j.delim)
		if !j.opts.NoHeader {
			j.first, j.firstEnd, j.names = bytes.Clone(first), j.rs.Scanner().Terminated(), fields
		}
	}
	j.run = &joinRun{Join: j, leftFields: len(fields)}
	if !more { // an empty LEFT: no key to resolve, no row to join
		return nil
	}
	if j.cols, err = keyspec.Resolve(j.opts.Key, j.names, j.names != nil, j.delim); err != nil {
		return fmt.Errorf("the left file's key: %w", err)
	}
	if c := slices.Max(j.cols); c >= len(fields) {
		return &LeftKeyError{Key: j.opts.Key, Column: c, Fields: fields, Header: !j.opts.NoHeader, Delim: j.delim}
	}
	// Read LEFT again with its key columns: from its first data record.
	keyed := func(s *scan.Scanner, data []byte) error {
		if len(j.cols) == 1 {
			return s.Init(data, j.delim, j.cols[0])
		}
		return s.InitComposite(data, j.delim, j.cols)
	}
	return j.rs.Rekey(keyed, !j.opts.NoHeader)
}

// readRightHeader reads what the output takes from RIGHT's first record:
// its header's names, or the number of its fields.
func (j *Join) readRightHeader() error {
	data, err := j.ix.Head() // the mapped CSV, or a compressed one's first records
	if err != nil {
		return err
	}
	delim := j.ix.Delimiter()
	j.right.delim = delim
	if start, end, ok := j.ix.HeaderAt(); ok {
		rec := data[start:end]
		j.right.header = rec
		j.right.names, _, j.right.headerTerminated = scan.Fields(rec, 0, delim)
		j.right.fields = len(j.right.names)
		j.right.start = end
		return nil
	}
	s, err := scan.New(data, delim, 0)
	if err != nil {
		return err
	}
	if s.LimitOne(); s.Next() {
		fields, _, _ := scan.Fields(data, s.Start(), delim)
		j.right.fields = len(fields)
		j.right.start = s.Start()
	}
	return nil
}

// RightBehind returns how many bytes were appended to RIGHT since its
// index was built: their rows take no part in the join.
func (j *Join) RightBehind() int64 { return j.ix.BytesBehind() }

// Close closes RIGHT's index.
func (j *Join) Close() error { return j.ix.Close() }

// ErrLeftKey means LEFT's key and RIGHT's index have different numbers of
// columns.
var ErrLeftKey = errors.New("the join key")

// ErrCoalesceOneSide means Coalesce was asked of a mode that prints one
// side's rows alone (Semi, Anti, RightSemi, RightAnti): there is no second
// key to leave out.
var ErrCoalesceOneSide = errors.New("the key is printed once (Coalesce) only by joins that print both sides' fields")

// Run reads the rest of LEFT once, joins each record with RIGHT's rows of
// the same key as opts.Mode says, and writes the result to w as CSV in
// LEFT's dialect: LEFT's header then RIGHT's (with their prefixes), and
// each row as LEFT's fields then the matching RIGHT row's, every row ending
// with '\n'. Rows come in LEFT's order, and for each LEFT row its matches
// in RIGHT's file order; for Right and Full, the RIGHT rows no LEFT
// row matched follow in RIGHT's order. Fields are copied as written; a
// RIGHT row is re-encoded only when RIGHT's delimiter is not LEFT's. With
// Coalesce, RIGHT's key columns are left out, and an unmatched RIGHT row's
// key goes in LEFT's key columns (see coalesce.go).
//
// Semi and Anti print LEFT's header and rows alone, verbatim (their bytes
// through their terminators; an unterminated last row gets a '\n', and is
// re-encoded if it ends inside a quote that never closes). RightSemi and
// RightAnti print RIGHT's header (none with NoHeader, or when RIGHT has
// none) and rows alone, once LEFT has ended, in RIGHT's order, each once:
// verbatim as Semi prints LEFT's when RIGHT's delimiter is LEFT's, else
// re-encoded in LEFT's dialect, as Right prints them. A RIGHT row without
// the key, or whose key's fields are all empty (unless Nulls), is never
// matched: RightAnti prints it.
//
// It returns the number of data rows written. Memory does not grow with
// either file, but for the bitmap of RIGHT's rows that Right, Full,
// RightSemi and RightAnti keep. Run may be called once.
func (j *Join) Run(ctx context.Context, w io.Writer) (rows int64, err error) {
	r := j.run
	if r == nil || r.out != nil {
		return 0, errors.New("a join runs once")
	}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	defer r.cancel(nil)
	r.out = bufio.NewWriterSize(w, 64<<10)
	err = j.ix.Guard(r.run) // a fault names RIGHT
	if err == nil {
		err = j.ix.Check()
	}
	if err == nil {
		err = r.out.Flush()
	}
	return r.rows.Load(), err
}

// Progress is how far a join has got, for a progress bar: counters that
// [Join.Run] advances a batch of LEFT's records, or an output buffer, at a
// time.
type Progress struct {
	// LeftBytes is how far LEFT has been read, from its first byte (its
	// header included): through the last record handed to the workers.
	LeftBytes int64
	// LeftRows is the number of LEFT's data records read.
	LeftRows int64
	// Rows is the number of data rows written.
	Rows int64
	// RightBytes is how far the pass through RIGHT that follows LEFT's end
	// (Right, Full, RightSemi, RightAnti) has got, of RightTotal bytes;
	// RightTotal is 0 until that pass begins.
	RightBytes, RightTotal int64
}

// Progress returns how far the join has got. It may be called from any
// goroutine while Run runs, or after; it reads a few counters and takes
// no lock.
func (j *Join) Progress() Progress {
	r := j.run
	return Progress{
		LeftBytes: r.leftRead.Load(), LeftRows: r.leftRows.Load(), Rows: r.rows.Load(),
		RightBytes: r.rightRead.Load(), RightTotal: r.rightTotal.Load(),
	}
}

// trimTerminator returns rec without its final '\n' or "\r\n".
func trimTerminator(rec []byte) []byte {
	n := len(rec)
	if n > 0 && rec[n-1] == '\n' {
		n--
		if n > 0 && rec[n-1] == '\r' {
			n--
		}
	}
	return rec[:n]
}

// columnNames returns the 0-based numbers of n columns as names, for the
// header of a side that has none.
func columnNames(n int) [][]byte {
	names := make([][]byte, n)
	for i := range names {
		names[i] = []byte(strconv.Itoa(i))
	}
	return names
}

// columns says n columns: "1 column", "2 columns".
func columns(n int) string {
	if n == 1 {
		return "1 column"
	}
	return fmt.Sprintf("%d columns", n)
}
