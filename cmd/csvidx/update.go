package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/source"
	"github.com/spf13/cobra"
)

type updateOptions struct {
	from      string
	noCompact bool
	noWait    bool
	quiet     bool
	res       resourceFlags
}

func newUpdateCommand(g *globals, s streams) *cobra.Command {
	var o updateOptions
	cmd := &cobra.Command{
		Use:   "update FILE | MANIFEST | FILE... --index MANIFEST",
		Short: "Index the rows appended to FILE since its index was built",
		Long: `Update indexes the rows appended to FILE since the index was built, into
FILE.csvidx.tail, without touching the main index: it rescans FILE from
where the main index stops (including a last row that had no newline and
may have been completed since). Lookups read the main index, then the tail.

When the tail reaches a tenth of the main index, update merges the two
(as csvidx compact does), unless --no-compact. An index whose CSV shrank or
changed is stale and must be rebuilt. Update updates every index of FILE,
in one scan of the appended rows, or the one --by or --index names; each
index is put in place whole, one after the other. A stale index of FILE
stops the update before any is written.

An index over many files (a manifest: see csvidx build) is updated with
new files: update MANIFEST adds the files its build's pattern or list
(--files-from) names now and it does not list, and update FILE...
--index MANIFEST (or --files-from) adds those of the FILEs it does not
list, in the order given. The new files go after the others, and their
rows into a new layer of index files; an update indexes again, with the
new files, each last layer that holds at most twice their bytes, so that
layers stay few (at most log2 of the index's bytes), and a lookup reads
one small index file more for each. Files the index lists must not have
changed; every new file must have their header.`,
		Example: `  csvidx update orders.csv
  csvidx update orders.csv --no-compact
  csvidx update orders.idx                 # the new files of the build's 'orders/*.csv'
  csvidx update orders/2026-12-07.csv --index orders.idx`,
		Args: cobra.ArbitraryArgs, // checked once the command runs: telling a manifest means opening a file, which must wait for checkDescriptors
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.from != "" || multifile.IsManifest(g.indexPath) || (len(args) == 1 && g.indexPath == "" && multifile.IsManifest(args[0])) {
				return updateMany(cmd, args, &o, g, s)
			}
			if len(args) == 1 && source.IsURL(g.indexPath) && !source.IsURL(args[0]) {
				_, err := manifestFlag(g, "update") // a local CSV's index is never at a URL: a manifest there, most likely
				return err
			}
			if len(args) > 1 || len(args) == 1 && multifile.IsPattern(args[0]) {
				quoted := make([]string, len(args))
				for i, a := range args {
					quoted[i] = shellQuote(a)
				}
				return fmt.Errorf("update takes one FILE, or the files to add to an index over many files with --index MANIFEST (csvidx update %s --index orders.idx)", oneLine(strings.Join(quoted, " ")))
			}
			if err := exactFile(cmd, args); err != nil {
				return err
			}
			if g.remoteIndex(args[0]) {
				return localOnly("update", args[0])
			}
			res, err := o.res.resources()
			if err != nil {
				return err
			}
			report := reporter(s.err, o.quiet)
			bar := newProgress(report, "updating")
			uo := &index.UpdateOptions{
				IndexPath: g.indexPath,
				By:        g.by,
				IndexDir:  g.indexDir,
				Resources: res,
				NoCompact: o.noCompact,
				NoWait:    o.noWait,
				Progress:  bar.update,
			}
			rs, err := index.UpdateAll(cmd.Context(), args[0], uo) // or the one --index or --by names
			bar.finish()
			if err != nil {
				return err
			}
			paths := make([]string, len(rs))
			for i, r := range rs {
				paths[i] = r.Path
			}
			for _, r := range rs {
				reportUpdate(args[0], r, which(paths, r.Path), report, s)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.noCompact, "no-compact", false, "keep the tail, however large, instead of merging it into the main index")
	f.BoolVar(&o.noWait, "no-wait", false, "fail at once if another csvidx is writing the index, instead of waiting")
	f.BoolVarP(&o.quiet, "quiet", "q", false, quietUsage)
	o.res.addFlags(f)
	addFilesFromFlag(cmd, &o.from)
	return cmd
}

// updateMany runs update of an index over many files: the manifest args
// name (alone), or --index with the files to add.
func updateMany(cmd *cobra.Command, args []string, o *updateOptions, g *globals, s streams) error {
	if o.noCompact {
		return fmt.Errorf("--no-compact: an index over many files has no tail to merge, but layers, which update keeps few by itself; leave it out")
	}
	path := g.indexPath
	if path == "" {
		if o.from != "" {
			_, err := manifestFlag(g, "update --files-from")
			return err
		}
		path, args = args[0], nil
	} else if _, err := manifestFlag(g, "update"); err != nil {
		return err
	}
	names, err := filesToAdd(args, o.from, s)
	if err != nil {
		return err
	}
	res, err := o.res.resources()
	if err != nil {
		return err
	}
	r, err := multifile.Update(cmd.Context(), path, names, &multifile.UpdateOptions{Resources: res})
	if err != nil {
		return err
	}
	report := reporter(s.err, o.quiet)
	if len(r.Added) == 0 {
		fmt.Fprintf(report, "csvidx: %s is up to date: no file to add\n", oneLine(path))
		return nil
	}
	x, err := multifile.Open(path)
	if err != nil {
		return err
	}
	defer x.Close()
	info := x.Info()
	fmt.Fprintf(report, "csvidx: added %s (%s) to %s, indexing %s: %s, %d with a key, in %s\n",
		plural(int64(len(r.Added)), "file"), formatBytes(r.NewBytes), oneLine(path), formatBytes(r.Indexed),
		plural(info.Rows, "row"), info.Records, plural(int64(len(r.Manifest.Layers)+1), "layer"))
	return nil
}

// reportUpdate says what an update of the CSV at csvPath did to one of
// its indexes; where names the index, when update acted on several.
func reportUpdate(csvPath string, r *index.UpdateResult, where string, report io.Writer, s streams) {
	info := r.Info
	switch r.Action {
	case "none":
		fmt.Fprintf(report, "csvidx: %s is up to date: nothing appended since it was indexed%s\n", oneLine(csvPath), where)
	case "tail":
		fmt.Fprintf(report, "csvidx: indexed %d new bytes of %s into the tail: %s, %d with a key%s\n",
			r.NewBytes, oneLine(csvPath), plural(info.Tail.Rows, "row"), info.Tail.Records, where)
		if r.CompactError != nil {
			fmt.Fprintf(s.err, "csvidx: warning: the new rows are indexed, in the tail, but %s; csvidx compact merges it later%s\n",
				oneLine(advise(explainDiskFull(r.CompactError, "the index with its tail is complete"))), where)
		}
	case "compact":
		fmt.Fprintf(report, "csvidx: indexed %d new bytes of %s and merged the tail into the main index: %s, %d with a key%s\n",
			r.NewBytes, oneLine(csvPath), plural(info.Rows, "row"), info.Records, where)
	case "rebuild":
		fmt.Fprintf(report, "csvidx: rebuilt the index of %s (its header record was incomplete): %s, %d with a key%s\n",
			oneLine(csvPath), plural(info.Rows, "row"), info.Records, where)
	}
}
