package main

import (
	"fmt"
	"time"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/options"
	"github.com/spf13/cobra"
)

type buildOptions struct {
	key       string
	noHeader  bool
	delimiter string
	noWait    bool
	res       resourceFlags
}

func newBuildCommand(g *globals, s streams) *cobra.Command {
	var o buildOptions
	cmd := &cobra.Command{
		Use:   "build FILE --key COLUMN",
		Short: "Index a CSV file by one column",
		Long: `Build reads FILE once and writes its index, FILE.csvidx, replacing any old
one atomically: until the new index is complete, the old one stays usable.

COLUMN is a header field's name or, if no header field has that name, a
0-based column number. The dialect (delimiter, header) is stored in the
index, so get and verify need no flags.

The file is scanned in chunks by --threads workers (all cores by default);
the index is the same at any number. The index records (16 bytes per row)
are sorted within --mem-limit-mib; beyond it they spill to temporary
files next to the index (or in --tmp-dir), one per thread up to four,
which together need as much free space as the index itself. The index
is byte for byte the same at any limit.`,
		Example: `  csvidx build orders.csv --key user_id
  csvidx build events.tsv --key 3 --delimiter '\t' --no-header
  csvidx build huge.csv --key user_id --mem-limit-mib 256 --tmp-dir /scratch`,
		Args: exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			delim, err := options.Delimiter(o.delimiter)
			if err != nil {
				return err
			}
			res, err := o.res.resources()
			if err != nil {
				return err
			}
			start := time.Now()
			bar := newProgress(s.err, "indexing")
			info, err := index.Build(cmd.Context(), args[0], index.BuildOptions{
				Key:       o.key,
				NoHeader:  o.noHeader,
				Delimiter: delim,
				IndexPath: g.indexPath,
				Resources: res,
				NoWait:    o.noWait,
				Progress:  bar.update,
			})
			bar.finish()
			if err != nil {
				return err
			}
			if info.KeyNote != "" {
				fmt.Fprintf(s.err, "csvidx: note: %s\n", oneLine(info.KeyNote))
			}
			b := info.Build
			chunks := fmt.Sprintf("%d chunks, %d repaired", b.Chunks, b.Repairs)
			if b.Skipped > 0 {
				chunks += fmt.Sprintf(", %d inside one record", b.Skipped)
			}
			if b.Full > 0 {
				chunks += fmt.Sprintf(", %d of short rows finished in order", b.Full)
			}
			if b.InOrder > 0 {
				chunks += fmt.Sprintf(", %d only in order", b.InOrder)
			}
			fmt.Fprintf(s.out, "indexed %d rows of %s by %s in %.2fs with %d threads (%s): %d with a key, %d too short; %s is %s\n",
				info.Rows, info.CSVPath, describeKey(info), time.Since(start).Seconds(), b.Threads, chunks,
				info.Records, info.ShortRows, info.IndexPath, formatBytes(info.IndexBytes))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.key, "key", "k", "", "key `COLUMN`: a header name or a 0-based number (required)")
	f.BoolVar(&o.noHeader, "no-header", false, "the first record is data, not a header")
	f.StringVarP(&o.delimiter, "delimiter", "d", ",", "field delimiter: one byte, or '\\t' for tabs")
	f.BoolVar(&o.noWait, "no-wait", false, "fail at once if another csvidx is writing the index, instead of waiting")
	o.res.addFlags(f)
	cmd.MarkFlagRequired("key")
	return cmd
}

// describeKey names the key column for people.
func describeKey(info *index.Info) string {
	if info.KeyName != "" {
		return fmt.Sprintf("%q (column %d)", info.KeyName, info.KeyColumn)
	}
	return fmt.Sprintf("column %d", info.KeyColumn)
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

// exactFile accepts exactly one argument, the CSV file.
func exactFile(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("%s takes one FILE, got %d arguments (see csvidx %s --help)", cmd.Name(), len(args), cmd.Name())
	}
	return nil
}
