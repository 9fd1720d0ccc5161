package main

import (
	"fmt"
	"io"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

type updateOptions struct {
	noCompact bool
	noWait    bool
	quiet     bool
	res       resourceFlags
}

func newUpdateCommand(g *globals, s streams) *cobra.Command {
	var o updateOptions
	cmd := &cobra.Command{
		Use:   "update FILE",
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
stops the update before any is written.`,
		Example: `  csvidx update orders.csv
  csvidx update orders.csv --no-compact`,
		Args: exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	return cmd
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
