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
--index names, and exits 1 if any differs; the main indexes that cover the
same bytes are rebuilt in one scan, and their tails in another. For the
manifest of an index over many files (as FILE, or --index), each file must
be as the manifest lists it, and each index file equal to the one a fresh
run of plan, map and reduce writes, in a temporary directory.`,
		Example: `  csvidx verify orders.csv || csvidx build orders.csv --key user_id`,
		Args:    exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := rf.resources()
			if err != nil {
				return err
			}
			if m := manifestArg(args[0], g); m != "" {
				return verifyMany(cmd.Context(), m, r, s)
			}
			bar := newProgress(s.err, "verifying")
			vo := &index.VerifyOptions{IndexPath: g.indexPath, By: g.by, IndexDir: g.indexDir, Resources: r, Progress: bar.update}
			var rs []*index.VerifyResult
			if localRemote != nil && g.remoteIndex(args[0]) {
				rs, err = verifyRemote(cmd.Context(), args[0], g, vo)
			} else {
				rs, err = index.VerifyAll(cmd.Context(), args[0], vo) // or the one --index or --by names
			}
			bar.finish()
			if err != nil {
				return err
			}
			paths := make([]string, len(rs))
			for i, res := range rs {
				paths[i] = res.Path
			}
			differ := false
			for _, res := range rs {
				reportVerify(args[0], res, which(paths, res.Path), s)
				differ = differ || !res.Equal
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

// reportVerify prints what verify found of one index of the CSV at
// csvPath; where names the index, when verify acted on several.
func reportVerify(csvPath string, res *index.VerifyResult, where string, s streams) {
	if res.Equal {
		fmt.Fprintf(s.out, "ok: the index of %s equals a fresh build%s\n", csvPath, where)
	} else {
		fmt.Fprintf(s.out, "the index of %s differs from a fresh build%s:\n", csvPath, where)
		for _, d := range res.Differences {
			fmt.Fprintf(s.out, "  %s\n", d)
		}
		fmt.Fprintf(s.out, "rebuild it: %s\n", buildCommand(csvPath, res.Path, res.Built))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(s.out, "note: %s\n", n)
	}
	if res.BytesBehind > 0 {
		fmt.Fprintf(s.out, "note: %d bytes appended since the build are not indexed; run csvidx update\n", res.BytesBehind)
	}
}

// localRemote, set by the remote build, fetches the whole remote index of
// a CSV at a URL into the cache and returns the path of its copy there,
// its URL and what closes it; nil in the other builds.
var localRemote func(ctx context.Context, csvPath string, g *globals) (path, url string, close func() error, err error)

// verifyRemote verifies the remote index of the CSV at csvURL: fetched
// whole (one round trip for the pages the cache lacks), then compared with
// a build of the CSV read over the network.
func verifyRemote(ctx context.Context, csvURL string, g *globals, vo *index.VerifyOptions) ([]*index.VerifyResult, error) {
	path, url, closeIx, err := localRemote(ctx, csvURL, g)
	if err != nil {
		return nil, err
	}
	defer closeIx()
	o := *vo
	o.IndexPath, o.By, o.IndexDir = path, "", ""
	res, err := index.Verify(ctx, csvURL, &o)
	if err != nil {
		return nil, err
	}
	res.Path = url
	return []*index.VerifyResult{res}, nil
}
