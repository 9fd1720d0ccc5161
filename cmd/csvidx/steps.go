package main

import (
	"fmt"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/spf13/cobra"
)

// The four steps that build an index over many files on any scheduler
// (package multifile): plan, map, reduce, commit.

const stepsLong = `

The four steps build an index over many files (or over one huge file) on
any scheduler, each task a process of its own, anywhere the files and the
manifest's directory can be read and written: plan lists the files and
cuts them into map tasks; each map task scans its range and writes its
records by partition; each reduce task writes one partition's index file;
commit checks it all and publishes the manifest atomically, which get then
reads. Every output is named after the plan's run and its task: a task run
twice, or again after a failure, does no harm, and commit publishes only
what the plan names. See docs/distributed.md for recipes (GNU parallel,
Slurm, Kubernetes, AWS Batch, Dask).`

func newPlanCommand(g *globals, s streams) *cobra.Command {
	var (
		keys                []string
		noHeader            bool
		delimiter, from     string
		partitions, splitMB int
		update              bool
	)
	cmd := &cobra.Command{
		Use:   "plan FILE... --key COLUMNS --index MANIFEST",
		Short: "Plan a build of an index over many files in tasks (the first of four steps)",
		Long: `Plan lists the files (several FILEs, a pattern such as 'orders/*.csv', or
--files-from), checks that they share the first one's header, resolves the
key, and cuts their concatenation into map tasks of about --split-mib at
guessed record starts. It writes the plan beside the manifest, as
MANIFEST.RUN.plan, and prints one line: the plan's path, the number of map
tasks and the number of partitions (reduce tasks), for a script to read.

With --update, plan adds files to the index at --index instead: the FILEs
it does not list, or with no FILE the files its build's pattern or list
names now; the key, dialect and partitions are the index's. The same map,
reduce and commit tasks then index them (see csvidx update). When there is
no file to add, plan prints nothing and says so on standard error.` + stepsLong,
		Example: `  read PLAN TASKS PARTS < <(csvidx plan 'orders/*.csv' --key order_id --index orders.idx --partitions 8)
  seq 0 $((TASKS-1)) | parallel csvidx map --plan "$PLAN" --task {}
  seq 0 $((PARTS-1)) | parallel csvidx reduce --plan "$PLAN" --partition {}
  csvidx commit --plan "$PLAN"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && from == "" && !update {
				return fmt.Errorf("plan takes a FILE, several, or --files-from (see csvidx plan --help)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if update {
				return planUpdate(cmd, args, from, splitMB, g, s)
			}
			switch {
			case len(keys) != 1:
				return fmt.Errorf("plan needs one --key COLUMNS (see csvidx plan --help)")
			case g.indexPath == "":
				return fmt.Errorf("plan needs --index MANIFEST, where the index's manifest goes (see csvidx plan --help)")
			case splitMB < 1:
				return fmt.Errorf("--split-mib %d: give 1 or more", splitMB)
			}
			delim, err := delimiterOption(cmd, delimiter, 0)
			if err != nil {
				return err
			}
			names, _, err := manyFiles(args, from, s) // expanded, or a file alone
			if err != nil {
				return err
			}
			o := &multifile.PlanOptions{BuildOptions: index.BuildOptions{Key: keys[0], NoHeader: noHeader, Delimiter: delim},
				Partitions: partitions, SplitBytes: int64(splitMB) << 20, Sources: multifile.NewSources(args, from)}
			p, path, err := multifile.MakePlan(cmd.Context(), names, g.indexPath, o)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(s.out, "%s %d %d\n", path, len(p.Tasks), p.Partitions)
			return err
		},
	}
	addFilesFromFlag(cmd, &from)
	f := cmd.Flags()
	f.StringArrayVarP(&keys, "key", "k", nil, "key `COLUMNS`: a header name or a 0-based number, or several as one CSV record for a composite key")
	f.BoolVarP(&noHeader, "no-header", "n", false, "the first record is data, not a header")
	f.StringVarP(&delimiter, "delimiter", "d", "", "field delimiter: one byte, or '\\t' for tabs (default: a tab for a .tsv or .tab FILE, else ,)")
	f.IntVar(&partitions, "partitions", 0, "the index files (reduce tasks): a key's is its hash modulo their number (default: one per GiB of the files)")
	f.IntVar(&splitMB, "split-mib", multifile.DefaultSplit>>20, "about how many `MiB` of the files a map task reads")
	f.BoolVar(&update, "update", false, "plan to add files to the index at --index (the FILEs it does not list; with none, what its build's pattern or list names now)")
	return cmd
}

// planUpdate runs plan --update: it plans adding the files args and from
// name (none: those the manifest's sources name) to the index whose
// manifest is at --index, and prints the plan as plan does, or nothing
// when there is no file to add.
func planUpdate(cmd *cobra.Command, args []string, from string, splitMB int, g *globals, s streams) error {
	for _, f := range []string{"key", "partitions", "no-header", "delimiter"} {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("--%s: plan --update takes the key, the dialect and the partitions from the index; leave it out", f)
		}
	}
	path, err := manifestFlag(g, "plan --update")
	if err != nil {
		return err
	}
	names, err := filesToAdd(args, from, s)
	if err != nil {
		return err
	}
	p, planPath, _, err := multifile.PlanUpdate(cmd.Context(), path, names, &multifile.PlanOptions{SplitBytes: int64(splitMB) << 20})
	if err != nil {
		return err
	}
	if p == nil {
		fmt.Fprintf(s.err, "csvidx: %s is up to date: no file to add\n", oneLine(path))
		return nil
	}
	_, err = fmt.Fprintf(s.out, "%s %d %d\n", planPath, len(p.Tasks), p.Partitions)
	return err
}

func newMapCommand(g *globals, s streams) *cobra.Command {
	var plan string
	var task int
	cmd := &cobra.Command{
		Use:   "map --plan PLAN --task I",
		Short: "Scan one range of a plan's files into runs by partition (the second of four steps)",
		Long: `Map runs map task I of the plan: it scans the task's range of the files,
checking each file it reads against the plan, and writes the records of
each partition to a run file beside the plan, then the task's .done file.` + stepsLong,
		Example: `  csvidx map --plan orders.idx.20261207T101500-1a2b3c4d.plan --task 0`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if plan == "" {
				return fmt.Errorf("map needs --plan PLAN, as csvidx plan printed it (see csvidx map --help)")
			}
			_, err := multifile.Map(cmd.Context(), plan, task)
			return err
		},
	}
	cmd.Flags().StringVar(&plan, "plan", "", "the plan's `PATH`, as csvidx plan printed it")
	cmd.Flags().IntVar(&task, "task", -1, "the map task's number `I`, from 0")
	return cmd
}

func newReduceCommand(g *globals, s streams) *cobra.Command {
	var plan string
	var partition int
	var res resourceFlags
	cmd := &cobra.Command{
		Use:   "reduce --plan PLAN --partition J",
		Short: "Write one partition's index file of a plan (the third of four steps)",
		Long: `Reduce runs reduce task J of the plan: once every map task has run, it
reads partition J's records of each, in order, and writes partition J's
index file beside the plan, replacing it atomically.` + stepsLong,
		Example: `  csvidx reduce --plan orders.idx.20261207T101500-1a2b3c4d.plan --partition 0`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if plan == "" {
				return fmt.Errorf("reduce needs --plan PLAN, as csvidx plan printed it (see csvidx reduce --help)")
			}
			r, err := res.resources()
			if err != nil {
				return err
			}
			_, err = multifile.Reduce(cmd.Context(), plan, partition, r)
			return err
		},
	}
	cmd.Flags().StringVar(&plan, "plan", "", "the plan's `PATH`, as csvidx plan printed it")
	cmd.Flags().IntVar(&partition, "partition", -1, "the partition's number `J`, from 0")
	res.addFlags(cmd.Flags())
	return cmd
}

func newCommitCommand(g *globals, s streams) *cobra.Command {
	var plan, publish string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "commit --plan PLAN",
		Short: "Check a plan's outputs and publish its manifest (the last of four steps)",
		Long: `Commit checks that every map task ran and ended where the next began, that
every partition's index file is there and whole, and that no file changed
size since the plan; then it writes the manifest atomically, and removes
the run's map outputs, its plan, and the index files of the manifest it
replaced. When a check fails, the manifest before stays as it was.

With --publish URL, commit then puts the index in object storage: its
index files and parts table beside URL, then the manifest at URL by a
conditional PUT, which replaces only the manifest it found there (a
publication meanwhile makes this one fail, replacing nothing) and never an
object that is not a manifest. The files the index reads must be at URLs;
those under the manifest's directory are named relative to it, so that the
whole can be copied. get and info then read the index at URL.` + stepsLong,
		Example: `  csvidx commit --plan orders.idx.20261207T101500-1a2b3c4d.plan
  csvidx commit --plan orders.idx.20261207T101500-1a2b3c4d.plan --publish s3://data/orders.idx`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if plan == "" {
				return fmt.Errorf("commit needs --plan PLAN, as csvidx plan printed it (see csvidx commit --help)")
			}
			m, path, err := multifile.Commit(cmd.Context(), plan)
			if err != nil {
				return err
			}
			if publish != "" {
				if publishManifest == nil {
					return &needsRemoteError{path: publish}
				}
				if err := publishManifest(cmd.Context(), path, publish); err != nil {
					return fmt.Errorf("the run %s is committed at %s, and its publication failed: %w", m.Run, oneLine(path), err)
				}
				path = publish
			}
			fmt.Fprintf(reporter(s.err, quiet), "csvidx: committed the run %s: %s (%s) indexed in %s; the index is %s\n", m.Run,
				plural(int64(m.PartCount), "file"), formatBytes(m.Size), plural(int64(len(m.Partitions)), "partition"), oneLine(path))
			return nil
		},
	}
	cmd.Flags().StringVar(&plan, "plan", "", "the plan's `PATH`, as csvidx plan printed it")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, quietUsage)
	cmd.Flags().StringVar(&publish, "publish", "", "then put the index in object storage, its manifest at `URL` (a conditional PUT); its files must be at URLs")
	return cmd
}
