package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type buildOptions struct {
	keys      []string
	noHeader  bool
	delimiter string
	noWait    bool
	asJSON    bool
	verbose   bool
	quiet     bool
	spanKiB   int
	filesFrom string
	res       resourceFlags
}

// reportBuilt reports the indexes a build made, infos, since start: one
// line each to report, or with asJSON their descriptions on standard
// output; with verbose, how the scan went. The notes on their keys go to
// standard error.
func reportBuilt(s streams, report io.Writer, infos []*index.Info, start time.Time, asJSON, verbose bool) error {
	for _, info := range infos {
		if info.KeyNote != "" {
			fmt.Fprintf(s.err, "csvidx: note: %s\n", oneLine(info.KeyNote))
		}
	}
	if asJSON && len(infos) == 1 {
		return printJSON(s.out, infos[0])
	} else if asJSON {
		return printJSON(s.out, infos)
	}
	for _, info := range infos {
		fmt.Fprintf(report, "csvidx: indexed %s of %s by %s in %.2f s: %s; the index is %s (%s)\n",
			plural(info.Rows, "row"), oneLine(info.CSVPath), describeKey(info), time.Since(start).Seconds(),
			describeKeyed(info), oneLine(info.IndexPath), formatBytes(info.IndexBytes))
	}
	if verbose {
		fmt.Fprintf(report, "csvidx: scan: %s\n", describeScan(infos[0].Build))
	}
	return nil
}

func newBuildCommand(g *globals, s streams) *cobra.Command {
	var o buildOptions
	cmd := &cobra.Command{
		Use:   "build FILE... --key COLUMNS [--key COLUMNS]...",
		Short: "Index a CSV file by a column, or by a composite key",
		Long: `Build reads FILE once and writes an index by each --key, replacing the old
index by the same key atomically: until the new index is complete, the old
one stays usable. The file's indexes by other keys stay as they are.

COLUMNS is a header field's name or, if no header field has that name, a
0-based column number. Several columns, as one CSV record (comma-separated
whatever the file's delimiter: user_id,status), make a composite key, whose
values get takes as one record of the file's dialect (42,shipped); quote a
name that holds a comma: '"a,b",c'. A .tsv or .tab file (a.tsv.gz, a.tsv.zst
too) is tab-separated unless --delimiter says otherwise. The dialect (delimiter, header) is stored
in the index, so get and verify need no flags.

The first index of a file is FILE.csvidx; the others are named by their
key's column numbers: FILE.by-3.csvidx, FILE.by-1-4.csvidx. Commands pick
one with --by COLUMNS when the file has several. --index PATH puts a single
index anywhere instead.

The file is scanned in chunks by --threads workers (all cores by default);
the index is the same at any number. The records to sort (16 bytes per
row) are kept within --mem-limit-mib; beyond it they spill to temporary
files next to the index (or in --tmp-dir), which have no name, vanish
when the build ends, and need up to 16 bytes of free space per row beyond
the limit. The index itself takes about 4 bytes per row, and is byte for
byte the same at any limit.

A compressed FILE (BGZF, zstd in frames, plain gzip) is read as it is, through
the codecs build: its index keeps the table of its frames, or for plain gzip
checkpoints every --gzip-span-kib of plain bytes.

Several FILEs, a pattern ('orders/*.csv': a FILE with * or ?, quoted
from the shell) or --files-from make one index over many files, by one
--key: their rows read as one CSV (the first file's header, which every
file must have). It is a manifest, written at --index, and an index file
beside it; get takes the manifest as FILE or as --index.

A FILE at an http(s) or s3 URL is read by ranges, through the remote
build, and each index is put next to it as above (conditional PUTs), at
--index's URL, or kept locally with --index PATH or --index-dir DIR.

Build reports what it did in one line on standard error (--json prints
the index's description on standard output instead, for scripts; --quiet
prints nothing but warnings).`,
		Example: `  csvidx build orders.csv --key user_id
  csvidx build orders.csv --key order_id --key user_id,status
  csvidx build orders.csv --key user_id,status --index by-user-status.csvidx
  csvidx build events.tsv --key 3 --no-header
  csvidx build events.txt --key 3 --delimiter '\t' --no-header
  csvidx build huge.csv --key user_id --mem-limit-mib 256 --tmp-dir /scratch
  csvidx build s3://bucket/orders.csv --key order_id --key user_id
  csvidx build 'orders/*.csv' --key order_id --index orders.idx`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && o.filesFrom == "" {
				return fmt.Errorf("build takes a FILE, several, or --files-from (see csvidx build --help)")
			}
			for _, a := range args {
				if err := indexable(cmd, a); err != nil {
					return err
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("key") {
				return fmt.Errorf("build needs --key COLUMNS, the column to index: a header name or a 0-based number (see csvidx build --help)")
			}
			if g.by != "" {
				return fmt.Errorf("build takes --key, not --by: --key names the index to build (see csvidx build --help)")
			}
			delim, err := delimiterOption(cmd, o.delimiter, 0) // 0: by the file's name
			if err != nil {
				return err
			}
			if o.spanKiB < 1 || o.spanKiB > 64<<10 {
				return fmt.Errorf("--gzip-span-kib %d: give 1 to 65536 (64 MiB, the most a lookup inflates at once)", o.spanKiB)
			}
			res, err := o.res.resources()
			if err != nil {
				return err
			}
			start := time.Now()
			report := reporter(s.err, o.quiet)
			bar := newProgress(report, "indexing")
			bo := &index.BuildOptions{
				NoHeader:  o.noHeader,
				Delimiter: delim,
				IndexPath: g.indexPath,
				IndexDir:  g.indexDir,
				Resources: res,
				NoWait:    o.noWait,
				Progress:  bar.update,
				GzipSpan:  int64(o.spanKiB) << 10,
			}
			names, many, err := manyFiles(args, o.filesFrom, s)
			if err != nil {
				return err
			}
			var infos []*index.Info
			switch {
			case many:
				infos, err = buildMany(cmd.Context(), names, multifile.NewSources(args, o.filesFrom), o.keys, bo, g)
			case buildRemote != nil && g.remoteIndex(args[0]):
				infos, err = buildRemote(cmd.Context(), args[0], o.keys, bo)
			default:
				infos, err = index.BuildIndexes(cmd.Context(), args[0], o.keys, bo)
			}
			bar.finish()
			if errors.Is(err, index.ErrLineEnds) && !many {
				return fmt.Errorf("%w, for example with tr '\\r' '\\n' < %s > converted.csv", err, shellQuote(args[0]))
			}
			if err != nil {
				return err
			}
			return reportBuilt(s, report, infos, start, o.asJSON, o.verbose)
		},
	}
	addFilesFromFlag(cmd, &o.filesFrom)
	f := cmd.Flags()
	f.StringArrayVarP(&o.keys, "key", "k", nil, "key `COLUMNS`: a header name or a 0-based number, or several as one CSV record for a composite key (required; repeat it to build several indexes in one scan)")
	f.BoolVarP(&o.noHeader, "no-header", "n", false, "the first record is data, not a header (alias --no-headers)")
	f.StringVarP(&o.delimiter, "delimiter", "d", "", "field delimiter: one byte, or '\\t' for tabs (default: a tab for a .tsv or .tab FILE, compressed or not, else ,)")
	f.BoolVar(&o.noWait, "no-wait", false, "fail at once if another csvidx is writing the index, instead of waiting")
	f.BoolVar(&o.asJSON, "json", false, "print the new index's description as one JSON object on standard output")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also report how the parallel scan went")
	f.BoolVarP(&o.quiet, "quiet", "q", false, quietUsage)
	f.IntVar(&o.spanKiB, "gzip-span-kib", 1024, "for a plain gzip FILE: `KiB` of plain bytes between the index's inflate checkpoints; a lookup inflates up to that, and each takes about 8 KB of index (update and verify keep the build's)")
	o.res.addFlags(f)
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "no-headers" { // as xsv and qsv spell it
			name = "no-header"
		}
		return pflag.NormalizedName(name)
	})
	return cmd
}

// describeKeyed says how many rows have a key and how many are too short.
func describeKeyed(info *index.Info) string {
	if info.ShortRows == 0 {
		return "every row has a key"
	}
	return fmt.Sprintf("%s a key, %s too short to have one", plural(info.Records, "row has"), plural(info.ShortRows, "row is"))
}

// describeScan says how a build's parallel scan went, for --verbose.
func describeScan(b *index.BuildStats) string {
	out := fmt.Sprintf("%s, %s, %d scanned again after a wrong guess of where a row starts",
		plural(int64(b.Threads), "thread"), plural(int64(b.Chunks), "chunk"), b.Repairs)
	if b.Skipped > 0 {
		out += fmt.Sprintf(", %d inside one record", b.Skipped)
	}
	if b.Full > 0 {
		out += fmt.Sprintf(", %d of short rows finished in order", b.Full)
	}
	if b.InOrder > 0 {
		out += fmt.Sprintf(", %d only in order", b.InOrder)
	}
	return out
}

// plural writes n with its noun, which may be followed by a verb ("row
// has"): 1 row has, 2 rows have.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	word, verb, _ := strings.Cut(noun, " ")
	switch verb {
	case "has":
		verb = " have"
	case "is":
		verb = " are"
	case "":
	default:
		verb = " " + verb
	}
	return fmt.Sprintf("%d %ss%s", n, word, verb)
}

// printJSON writes v as one line of JSON.
func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// describeKey names the key column, or a composite key's columns, for
// people.
func describeKey(info *index.Info) string {
	cols := fmt.Sprintf("column %d", info.KeyColumn)
	if info.KeyColumns != nil {
		nums := make([]string, len(info.KeyColumns))
		for i, c := range info.KeyColumns {
			nums[i] = strconv.Itoa(c)
		}
		cols = "columns " + strings.Join(nums, ", ")
	}
	if info.KeyName != "" {
		return fmt.Sprintf("%q (%s)", info.KeyName, cols)
	}
	return cols
}

// formatBytes writes n in the largest binary unit that keeps it above 1.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// buildRemote, set by the remote build, builds the index of a CSV at a URL
// and puts it next to the CSV, or at opts.IndexPath's URL; nil in the
// other builds.
var buildRemote func(ctx context.Context, csvURL string, keys []string, opts *index.BuildOptions) ([]*index.Info, error)
