package main

import (
	"fmt"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

func newCompactCommand(g *globals, s streams) *cobra.Command {
	var noWait, quiet bool
	cmd := &cobra.Command{
		Use:   "compact FILE",
		Short: "Merge the tail of FILE's index into its main index",
		Long: `Compact merges FILE.csvidx.tail into FILE.csvidx: the two sorted files are
merged as they are, without parsing FILE, into a new main index that
replaces the old one atomically; then the tail is removed. The result is
byte for byte what csvidx build writes. Without a tail it does nothing.
It compacts every index of FILE, or the one --by or --index names.`,
		Example: `  csvidx update orders.csv --no-compact && csvidx compact orders.csv`,
		Args:    exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.remoteIndex(args[0]) {
				return localOnly("compact", args[0])
			}
			paths, err := g.targets(args[0])
			if err != nil {
				return err
			}
			for _, path := range paths {
				info, err := index.Compact(cmd.Context(), args[0], &index.CompactOptions{IndexPath: path, IndexDir: g.indexDir, NoWait: noWait})
				if err != nil {
					return err
				}
				fmt.Fprintf(reporter(s.err, quiet), "csvidx: the index of %s has %s, %d with a key, in one file of %s%s\n",
					oneLine(args[0]), plural(info.Rows, "row"), info.Records, formatBytes(info.IndexBytes), which(paths, path))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "fail at once if another csvidx is writing the index, instead of waiting")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, quietUsage)
	return cmd
}
