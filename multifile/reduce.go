package multifile

import (
	"context"
	"fmt"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/sorter"
)

// Reduce runs reduce task j of the plan at planPath: it reads partition
// j's records from every map task's run, in the order of the tasks, and
// writes partition j's index file (BASE.RUN.p-J.csvidx, and its fence),
// replacing it atomically. Every map task must have run, and ended where
// the next one began. Run again, it writes the same index again.
func Reduce(ctx context.Context, planPath string, j int, res index.Resources) (*index.Info, error) {
	p, err := ReadPlan(planPath)
	if err != nil {
		return nil, err
	}
	if err := p.checkPartition(j); err != nil {
		return nil, err
	}
	results := make([]*MapResult, len(p.Tasks))
	var totals index.Totals
	var counts = make([]uint64, p.Partitions)
	for i := range p.Tasks {
		if results[i], err = p.readMapResult(planPath, i); err != nil {
			return nil, err
		}
		for k, n := range results[i].Counts {
			counts[k] += n
		}
		totals.Rows += results[i].Rows
		totals.ShortRows += results[i].Short
		totals.Blanks += results[i].Blanks
	}
	if counts[j] > maxRunRecords {
		return nil, fmt.Errorf("partition %d holds %d records, more than the %d an index made of run files takes: plan again with more partitions", j, counts[j], uint64(maxRunRecords))
	}
	totals = partitionTotals(totals, counts, j)
	concat, l, err := p.manifest().concat(p.manifestPath(planPath), true)
	if err != nil {
		return nil, err
	}
	defer l.close() // WriteRecords closes concat
	feed := func(add func([]sorter.Record) error) error {
		for i, r := range results {
			if err := readRun(p.mapRun(planPath, i, j), r.Counts[j], r.Sums[j], add); err != nil {
				return err
			}
		}
		return nil
	}
	bo := &index.BuildOptions{Key: p.Key, NoHeader: p.NoHeader, Delimiter: p.Delimiter[0], IndexPath: p.partition(planPath, j), Resources: res}
	return index.WriteRecords(ctx, concat, totals, feed, bo)
}

// partitionTotals returns the totals of partition j's index, of all the
// map tasks' totals, which counts split by partition: its records; the
// rows without the key and the blank lines go to the first partition that
// has records (to partition 0 when none has: the build then fails as a
// build of one file does, no row having the key), so that the partitions'
// totals add up to the whole's.
func partitionTotals(all index.Totals, counts []uint64, j int) index.Totals {
	first := 0
	for k, n := range counts {
		if n > 0 {
			first = k
			break
		}
	}
	t := index.Totals{Rows: counts[j], Resume: -1}
	if j == first {
		t.Rows += all.ShortRows
		t.ShortRows, t.Blanks = all.ShortRows, all.Blanks
	}
	return t
}
