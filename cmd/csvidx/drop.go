package main

import (
	"fmt"
	"strings"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

func newDropCommand(g *globals, s streams) *cobra.Command {
	var noWait bool
	cmd := &cobra.Command{
		Use:   "drop FILE",
		Short: "Remove the index files of FILE",
		Long: `Drop removes FILE.csvidx, its tail and fence, the temporary files of
interrupted writers, and the writers' lock: every file csvidx made for
FILE's index, and nothing else. A file at one of those paths that is not
csvidx's own is an error, and then nothing is removed. FILE itself is
never touched, and need not exist any more. It drops every index of FILE
(FILE.csvidx and the FILE.by-*.csvidx of other keys), or the one --by or
--index names.`,
		Example: `  csvidx drop orders.csv
  csvidx drop orders.csv --by user_id,status
  csvidx drop orders.csv --index /scratch/orders.csvidx`,
		Args: exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			removed, err := index.DropAll(args[0], &index.DropOptions{IndexPath: g.indexPath, By: g.by, NoWait: noWait})
			if len(removed) > 0 {
				fmt.Fprintf(s.err, "csvidx: removed %s\n", oneLine(strings.Join(removed, ", ")))
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "fail at once if another csvidx is writing the index, instead of waiting")
	return cmd
}
