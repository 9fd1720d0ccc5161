package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

func newDropCommand(g *globals, s streams) *cobra.Command {
	var noWait, force bool
	cmd := &cobra.Command{
		Use:   "drop FILE",
		Short: "Remove the index files of FILE",
		Long: `Drop removes every file csvidx made for FILE's indexes, and nothing else:
FILE.csvidx and the FILE.by-*.csvidx of other keys, their tails and fences,
the temporary files of interrupted writers, and the writers' lock, also
when it is all that is left. Every file is checked before any is removed:
a file at one of those paths that is not csvidx's own is an error, and
then nothing is removed. FILE itself is never touched, and need not exist
any more. With --by or --index it drops that one index (the lock stays
while another index uses it).

A FILE with no index is an error (exit 2), unless --force: then, as
rm -f, drop exits 0 when there is nothing to drop. --force never removes a
file that is not csvidx's.`,
		Example: `  csvidx drop orders.csv
  csvidx drop orders.csv --by user_id,status
  csvidx drop orders.csv --index /scratch/orders.csvidx
  csvidx drop -f orders.csv`,
		Args: exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.remoteIndex(args[0]) {
				return localOnly("drop", args[0])
			}
			removed, err := index.DropAll(args[0], &index.DropOptions{IndexPath: g.indexPath, By: g.by, IndexDir: g.indexDir, NoWait: noWait})
			if len(removed) > 0 {
				fmt.Fprintf(s.err, "csvidx: removed %s\n", oneLine(strings.Join(removed, ", ")))
			}
			if force && len(removed) == 0 && errors.Is(err, index.ErrNoIndex) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "fail at once if another csvidx is writing the index, instead of waiting")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "exit 0 when FILE has no index to drop (as rm -f)")
	return cmd
}
