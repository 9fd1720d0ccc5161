package main

import (
	"context"
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
and a CSV that shrank. It verifies every index of FILE, or the one --by or
--index names, and exits 1 if any differs.`,
		Example: `  csvidx verify orders.csv || csvidx build orders.csv --key user_id`,
		Args:    exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := rf.resources()
			if err != nil {
				return err
			}
			paths, err := g.targets(args[0])
			if err != nil {
				return err
			}
			differ := false
			for _, path := range paths {
				equal, err := verifyIndex(cmd.Context(), args[0], path, which(paths, path), r, s)
				if err != nil {
					return err
				}
				differ = differ || !equal
			}
			if differ {
				return errNoMatch
			}
			return nil
		},
	}
	rf.addFlags(cmd.Flags())
	return cmd
}

// verifyIndex verifies the index at path of the CSV at csvPath and reports
// it; where names the index, when verify acts on several. It returns
// whether the index equals a fresh build.
func verifyIndex(ctx context.Context, csvPath, path, where string, r index.Resources, s streams) (bool, error) {
	bar := newProgress(s.err, "verifying")
	res, err := index.Verify(ctx, csvPath, &index.VerifyOptions{
		IndexPath: path,
		Resources: r,
		Progress:  bar.update,
	})
	bar.finish()
	if err != nil {
		return false, err
	}
	if res.Equal {
		fmt.Fprintf(s.out, "ok: the index of %s equals a fresh build%s\n", csvPath, where)
	} else {
		fmt.Fprintf(s.out, "the index of %s differs from a fresh build%s:\n", csvPath, where)
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
	return res.Equal, nil
}
