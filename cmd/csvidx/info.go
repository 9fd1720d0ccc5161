package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

func newInfoCommand(g *globals, s streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "info FILE [--json]",
		Short: "Describe the index of FILE and whether it is up to date",
		Long: `Info prints what the index of FILE holds (key column, dialect, counts) and how
it relates to FILE now: fresh, behind (rows appended since), or stale.
A stale index is reported, not refused; a broken one is an error. A file
with several indexes gets a description of each (--json: an array of the
objects), unless --by or --index picks one; a broken one among them is
described as broken, with its error, and info then exits 2. The default index, the one
get uses without --by (FILE.csvidx), is marked ("default": true).
FILE (or --index) may be the manifest of an index over many files: info
then describes it as one index, its rows and bytes those of all its files
and index files.`,
		Example: `  csvidx info orders.csv
  csvidx info orders.csv --json | jq .bytes_behind`,
		Args: exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			var infos []*index.Info
			var err error
			if m := manifestArg(args[0], g); m != "" {
				infos, err = manyInfo(m)
			} else if openRemote != nil && g.remoteIndex(args[0]) {
				infos, err = remoteInfo(cmd.Context(), args[0], g)
			} else {
				infos, err = index.ReadInfoAll(args[0], g.options())
			}
			if err != nil {
				return err
			}
			var broken error // the first broken index's, reported after the descriptions
			for _, info := range infos {
				if info.StaleError != nil {
					info.Stale = advise(info.StaleError) // the fix in the CLI's words
				}
				if info.BrokenError != nil {
					info.Error = advise(info.BrokenError)
					broken = cmp.Or(broken, error(info.BrokenError))
				}
			}
			if err := printInfos(s, infos, asJSON); err != nil {
				return err
			}
			return broken
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object (an array of them for several indexes), for scripts")
	return cmd
}

// printInfos prints the descriptions of indexes, as text or JSON: one
// object, or an array of them for several.
func printInfos(s streams, infos []*index.Info, asJSON bool) error {
	if asJSON && len(infos) == 1 {
		return printJSON(s.out, infos[0])
	} else if asJSON {
		return printJSON(s.out, infos)
	}
	for i, info := range infos {
		if i > 0 {
			fmt.Fprintln(s.out)
		}
		if err := printInfo(s, info); err != nil {
			return err
		}
	}
	return nil
}

// printInfo prints the description of one index as text.
func printInfo(s streams, info *index.Info) error {
	w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	def := ""
	if info.Default {
		def = "the default, used without --by; "
	}
	if info.State == "broken" {
		fmt.Fprintf(w, "csv\t%s\n", info.CSVPath)
		fmt.Fprintf(w, "index\t%s (%sbroken)\n", info.IndexPath, def)
		fmt.Fprintf(w, "state\tbroken: %s\n", info.Error)
		return w.Flush()
	}
	state := "fresh"
	switch {
	case info.Stale != "":
		state = "stale: " + oneLine(info.Stale)
	case info.BytesBehind > 0:
		state = fmt.Sprintf("behind: %d bytes appended since the build are not indexed; run csvidx update", info.BytesBehind)
	}
	header := "no (--no-header)"
	if info.Header {
		header = "yes"
	}
	fmt.Fprintf(w, "csv\t%s (%d bytes)\n", info.CSVPath, info.CSVBytes)
	if info.Compression != "" {
		fmt.Fprintf(w, "compressed\t%s, %d bytes on disk when indexed; a table of its frames of %d bytes in the index\n", info.Compression, info.FileBytes, info.TableBytes)
	}
	fmt.Fprintf(w, "index\t%s (%s%s, format %d, generation %s)\n", info.IndexPath, def, formatBytes(info.IndexBytes), info.Version, info.Generation)
	if info.FingerprintBits > 0 {
		fmt.Fprintf(w, "density\t%.2f bytes per row (fingerprints of %d bits)\n", info.BytesPerRow, info.FingerprintBits)
	} else {
		fmt.Fprintf(w, "density\t%.2f bytes per row (16-byte records)\n", info.BytesPerRow)
	}
	fmt.Fprintf(w, "key\t%s\n", describeKey(info))
	fmt.Fprintf(w, "dialect\tdelimiter %q, header %s\n", info.Delimiter, header)
	fmt.Fprintf(w, "rows\t%d (%d indexed, %d too short to have the key)\n", info.Rows, info.Records, info.ShortRows)
	fmt.Fprintf(w, "blank lines\t%d\n", info.BlankLines)
	fmt.Fprintf(w, "indexed bytes\t%d", info.ScannedBytes)
	if info.Unterminated {
		fmt.Fprintf(w, " (the last row, at byte %d, has no newline: it may be incomplete)", info.ResumeOffset)
	}
	fmt.Fprintln(w)
	if t := info.Tail; t != nil {
		fmt.Fprintf(w, "tail\t%s (%s): rows appended from byte %d, %d rows, %d indexed, %d too short\n",
			t.Path, formatBytes(t.Bytes), t.BaseOffset, t.Rows, t.Records, t.ShortRows)
	}
	fmt.Fprintf(w, "fence\t%s", info.Fence)
	if info.FenceIgnored != "" {
		fix := "csvidx build or compact rewrites it"
		if strings.Contains(info.FenceIgnored, "not a regular file") {
			fix = "remove it, and csvidx build or compact writes a new one" // writers replace only their own files
		}
		fmt.Fprintf(w, " (ignored, lookups search the index: %s; %s)", info.FenceIgnored, fix)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "state\t%s\n", state)
	return w.Flush()
}

// remoteInfo describes the remote index of the CSV at csvURL, as its
// opening (one round trip) finds it: fresh or behind (a stale one is the
// error that says so), with its URLs for paths.
func remoteInfo(ctx context.Context, csvURL string, g *globals) ([]*index.Info, error) {
	ix, _, closeIx, err := openRemote(ctx, csvURL, g, true)
	if err != nil {
		return nil, err
	}
	defer closeIx()
	if m, ok := ix.(*manyIndex); ok { // a manifest at the URL
		info := m.Info()
		info.CSVPath = fmt.Sprintf("%s (%d files)", csvURL, m.Manifest().PartCount)
		return []*index.Info{info}, nil
	}
	info := ix.(*index.Index).Info()
	info.IndexPath = cmp.Or(g.indexPath, csvURL+".csvidx")
	if info.Fence != "" {
		info.Fence = info.IndexPath + ".fence"
	}
	return []*index.Info{info}, nil
}
