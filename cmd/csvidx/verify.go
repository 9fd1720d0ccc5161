package main

import (
	"fmt"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

func newVerifyCommand(g *globals, s streams) *cobra.Command {
	var rf resourceFlags
	cmd := &cobra.Command{
		Use:   "verify FILE",
		Short: "Check that the index equals a fresh build, byte for byte",
		Long: `Verify rebuilds the index of FILE in memory, with the options it was built
with, over the bytes of FILE it covers, and compares it with the index file.
It exits 0 when they are equal, 1 when they differ (saying where), 2 on
error. It catches any edit of the indexed part, any corruption of the index,
and a CSV that shrank.`,
		Example: `  csvidx verify orders.csv || csvidx build orders.csv --key user_id`,
		Args:    exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := rf.resources()
			if err != nil {
				return err
			}
			bar := newProgress(s.err, "verifying")
			res, err := index.Verify(cmd.Context(), args[0], &index.VerifyOptions{
				IndexPath: g.indexPath,
				Resources: r,
				Progress:  bar.update,
			})
			bar.finish()
			if err != nil {
				return err
			}
			if res.Equal {
				fmt.Fprintf(s.out, "ok: the index of %s equals a fresh build\n", args[0])
			} else {
				fmt.Fprintf(s.out, "the index of %s differs from a fresh build:\n", args[0])
				for _, d := range res.Differences {
					fmt.Fprintf(s.out, "  %s\n", d)
				}
			}
			for _, n := range res.Notes {
				fmt.Fprintf(s.out, "note: %s\n", n)
			}
			if res.BytesBehind > 0 {
				fmt.Fprintf(s.out, "note: %d bytes appended since the build are not indexed; run csvidx update\n", res.BytesBehind)
			}
			if !res.Equal {
				return errNoMatch
			}
			return nil
		},
	}
	rf.addFlags(cmd.Flags())
	return cmd
}
