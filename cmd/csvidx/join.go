package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/join"
	"github.com/csvidx/csvidx/source"
	"github.com/spf13/cobra"
)

type joinOptions struct {
	modes       [len(joinModes)]bool // --inner ... --right-anti, in join.Mode's order
	key         string
	rightKey    string
	delimiter   string
	noHeader    bool
	nulls       bool
	coalesce    bool
	quiet       bool
	prefixLeft  string
	prefixRight string
	readAhead   string
	gapKiB      int64
	res         resourceFlags
}

// joinModes are the mode flags, in join.Mode's order.
var joinModes = [...]struct{ name, usage string }{
	{"inner", "print each LEFT row with each RIGHT row of its key (the default)"},
	{"left", "also print the LEFT rows without a match, with RIGHT's fields empty"},
	{"semi", "print the LEFT rows that have a match, as they are"},
	{"anti", "print the LEFT rows that have no match, as they are"},
	{"right", "inner, then the RIGHT rows no LEFT row matched, with LEFT's fields empty"},
	{"full", "left, then the RIGHT rows no LEFT row matched"},
	{"right-semi", "print each RIGHT row some LEFT row matched, once and as it is, after LEFT ends"},
	{"right-anti", "print the RIGHT rows no LEFT row matched, as they are, after LEFT ends"},
}

func newJoinCommand(g *globals, s streams) *cobra.Command {
	var o joinOptions
	cmd := &cobra.Command{
		Use:   "join LEFT RIGHT --key COLUMNS",
		Short: "Join a CSV stream with an indexed CSV, in constant memory",
		Long: `Join reads LEFT once, a file or - for standard input, and looks up each of
its rows in RIGHT through RIGHT's index: memory does not grow with either
file. RIGHT must be indexed by --right-key (by default the columns --key
names, by name); csvidx build RIGHT --key COLUMNS makes that index.

The output is a CSV in LEFT's dialect: LEFT's header fields then RIGHT's,
and each row as LEFT's fields then the matching RIGHT row's, in LEFT's order
and, for each LEFT row, RIGHT's file order. Fields are copied as written; a
RIGHT row is re-encoded only when RIGHT's delimiter differs. Every row ends
with \n, and the header is printed even when nothing matches. With
--no-header, LEFT's first record is data and no header is printed; a RIGHT
without a header gives its column numbers as names.

--coalesce prints the key once, as SQL's USING and csvjoin do: RIGHT's key
columns are left out of the header and of every row. A RIGHT row no LEFT
row matched (--right, --full) keeps its key in LEFT's key columns, as
COALESCE(left.key, right.key) would, LEFT's other fields empty. Fields are
still copied as written: a RIGHT row is only cut around its key's fields.

--semi and --anti print LEFT's header and rows alone, as written (an
unterminated last row gets a \n). --right-semi and --right-anti print
RIGHT's header and rows alone, each row once, in RIGHT's order, after LEFT
ends: as written when RIGHT's delimiter is LEFT's, else re-encoded in
LEFT's, as --right prints them. Their header is RIGHT's, even for an empty
LEFT; none with --no-header, or when RIGHT has none.

Keys are compared byte for byte, as get compares them; a composite key is
matched field by field. A LEFT row whose key fields are all empty matches
nothing, unless --nulls; a RIGHT row too short for the key matches nothing.
--right, --full, --right-semi and --right-anti print RIGHT's rows after
LEFT ends, keeping a bitmap of the RIGHT rows LEFT's matched: a bit per
(key's last column + 1) bytes of RIGHT, 2 at least (1/16 of RIGHT for a
key in its first column), in memory up to --mem-limit-mib, else in a
temporary file in --tmp-dir that vanishes when the join ends.

On a terminal, a join that runs for more than a second shows its progress
on standard error: how far LEFT has been read (of its size when it is a
file), the rows written and the rate; then, for the modes that print
RIGHT's rows after LEFT's, how far they have got through RIGHT. Not when
standard output is the terminal too, nor with --quiet.

On a cold cache each lookup reads a page of RIGHT at random. Once the
lookups reach 2.5% of RIGHT's pages (its CSV's and its index's), the join
reads both through, in order, in the background, which costs less from
there on; it does so from the start when LEFT is a file with that many
rows. --read-ahead always does it at once, never not at all.

The exit status is 0 when a data row was printed, 1 when none was, 2 on
error.`,
		Example: `  csvidx build users.csv --key user_id
  csvidx join orders.csv users.csv --key user_id > orders-with-users.csv
  csvidx join --left orders.csv users.csv --key user_id -r user_
  csvidx get orders.csv --header 1198 | csvidx join - users.csv --key user_id
  csvidx join --anti a.tsv b.csv --key id     # a .tsv LEFT is tab-separated
  csvidx join --right-anti orders.csv users.csv --key user_id   # users without orders
  csvidx join --full --coalesce a.csv b.csv --key id            # one id column`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("join needs LEFT and RIGHT, two files (LEFT may be - for standard input); got %d arguments (see csvidx join --help)", len(args))
			}
			return indexableRight(args[1])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, args[0], args[1], g, s)
		},
	}
	f := cmd.Flags()
	for i, m := range joinModes {
		f.BoolVar(&o.modes[i], m.name, false, m.usage)
	}
	names := make([]string, len(joinModes))
	for i, m := range joinModes {
		names[i] = m.name
	}
	cmd.MarkFlagsMutuallyExclusive(names...)
	f.StringVar(&o.key, "key", "", "LEFT's key `COLUMNS`: a header name or 0-based number, or several for a composite key (user_id,status)")
	f.StringVar(&o.rightKey, "right-key", "", "RIGHT's key `COLUMNS`, which picks its index (default: --key)")
	f.StringVarP(&o.delimiter, "delimiter", "d", "", "LEFT's field separator, one byte ('\\t' for TSV); the output's too (default: a tab for a .tsv or .tab LEFT, else ,)")
	f.BoolVar(&o.noHeader, "no-header", false, "LEFT has no header record: its first record is data")
	f.BoolVar(&o.nulls, "nulls", false, "let a LEFT key whose fields are all empty match")
	f.BoolVar(&o.coalesce, "coalesce", false, "print the key once: leave RIGHT's key columns out (an unmatched RIGHT row's key goes in LEFT's)")
	f.StringVarP(&o.prefixLeft, "prefix-left", "l", "", "put `TEXT` before each of LEFT's header names")
	f.StringVarP(&o.prefixRight, "prefix-right", "r", "", "put `TEXT` before each of RIGHT's header names")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "draw no progress bar (warnings and errors are still printed)")
	f.Int64Var(&o.gapKiB, "gap-kib", 0, "for a RIGHT at a URL: read its rows less than `KiB` apart by one GET (default 64, 1024 for s3)")
	f.StringVar(&o.readAhead, "read-ahead", "auto", "read RIGHT and its index whole, in order: `auto` (once the lookups reach 2.5% of their pages), always, never")
	o.res.addJoinFlags(f)
	cmd.MarkFlagRequired("key")
	return cmd
}

func (o *joinOptions) run(cmd *cobra.Command, leftPath, rightPath string, g *globals, s streams) error {
	if g.by != "" {
		return errors.New("join picks RIGHT's index with --right-key, not --by")
	}
	delim, err := delimiterOption(cmd, o.delimiter, index.DefaultDelimiter(leftPath))
	if err != nil {
		return err
	}
	if o.gapKiB < 0 {
		return fmt.Errorf("--gap-kib %d: give 0 or more", o.gapKiB)
	}
	if applyGap != nil {
		applyGap(o.gapKiB << 10)
	}
	opts := &join.Options{
		Key: o.key, RightKey: o.rightKey, RightIndex: g.indexPath, RightIndexDir: g.indexDir,
		Delimiter: delim, NoHeader: o.noHeader, Nulls: o.nulls,
		PrefixLeft: o.prefixLeft, PrefixRight: o.prefixRight,
		OpenRight: openRight,
	}
	if opts.Resources, err = o.res.check(); err != nil {
		return err
	}
	switch o.readAhead {
	case "auto":
	case "never":
		opts.ReadAhead = join.ReadAheadNever
	case "always":
		opts.ReadAhead = join.ReadAheadAlways
	default:
		return fmt.Errorf("--read-ahead %q: give auto, always or never", o.readAhead)
	}
	for i, on := range o.modes {
		if on {
			opts.Mode = join.Mode(i)
			if o.coalesce && i != int(join.Inner) && i != int(join.Left) && i != int(join.Right) && i != int(join.Full) {
				return fmt.Errorf("--coalesce does not go with --%s, which prints one side's rows alone: there is no second key to leave out", joinModes[i].name)
			}
		}
	}
	opts.Coalesce = o.coalesce
	var left io.Reader
	if leftPath == "-" {
		if err := beforeStdin(rightPath); err != nil {
			return err
		}
		left = s.stdin()
	} else {
		f, err := source.OpenStream(leftPath)
		if err != nil {
			return fmt.Errorf("the left file: %w", err)
		}
		defer f.Close()
		left = f
	}
	j, err := join.New(left, rightPath, opts)
	var noIndex *join.NoIndexError
	var leftKey *join.LeftKeyError
	switch {
	case errors.As(err, &leftKey):
		return fmt.Errorf("%s; give a column that exists, or the left file's delimiter (--delimiter)", oneLine(err.Error()))
	case errors.As(err, &noIndex) && noIndex.NoColumn && o.rightKey == "":
		return fmt.Errorf("%s: give RIGHT's key columns with --right-key COLUMNS, and build its index by them if it has none", oneLine(noIndex.Error()))
	case errors.As(err, &noIndex) && noIndex.NoColumn:
		return fmt.Errorf("%s: give --right-key columns of RIGHT's header", oneLine(noIndex.Error()))
	case errors.As(err, &noIndex) && noIndex.Delimiter != 0:
		return fmt.Errorf("%s: run csvidx build %s --key %s --delimiter %s", oneLine(noIndex.Error()), shellQuote(rightPath), shellQuote(noIndex.Key), delimiterFlag(noIndex.Delimiter))
	case errors.As(err, &noIndex):
		return fmt.Errorf("%s: run csvidx build %s --key %s", oneLine(noIndex.Error()), shellQuote(rightPath), shellQuote(noIndex.Key))
	}
	if err != nil {
		return err
	}
	if !processExits {
		defer j.Close()
	}
	if out, ok := s.out.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if st, err := out.Stat(); err == nil {
			var same *join.OutputIsInputError
			if errors.As(j.CheckOutput(st), &same) {
				return fmt.Errorf("standard output is %s: the join would read or overwrite its own input; write it to another file", same.What)
			}
		}
	}
	if n := j.RightBehind(); n > 0 {
		fmt.Fprintf(s.err, "csvidx: warning: %d bytes at the end of %s are not indexed and take no part in the join; csvidx update will add them\n", n, oneLine(rightPath))
	}
	stopBar := func() {}
	if joinBarOn(s.out, s.err, o.quiet) {
		stopBar = startJoinBar(s.err, j, regularSize(left))
	}
	rows, err := j.Run(cmd.Context(), s.out)
	stopBar() // before any message: the bar is gone
	if remoteJoinNote != nil && err == nil {
		if note := remoteJoinNote(rightPath); note != "" {
			fmt.Fprintf(s.err, "csvidx: note: %s\n", note)
		}
	}
	switch {
	case errors.Is(err, syscall.EPIPE):
		return nil // the reader stopped reading: it has what it wanted
	case err != nil:
		return err
	case rows == 0:
		return errNoMatch
	}
	return nil
}

// regularSize returns the size of r when it is a regular file, else 0.
func regularSize(r io.Reader) int64 {
	f, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// openRight, set by the remote build, opens the index of a RIGHT at a URL
// (see join.Options.OpenRight); nil in the other builds.
var openRight func(rightPath string, o *index.Options) (*index.Index, error)

// remoteJoinNote, set by the remote build, says, after a join with a RIGHT
// at a URL, when the join read more of it over the network than a
// download of it would have; nil in the other builds.
var remoteJoinNote func(rightPath string) string
