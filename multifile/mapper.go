package multifile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/sorter"
	"github.com/csvidx/csvidx/source"
)

// A MapResult is what a map task found: its range, what it counted, and
// the records of each partition (how many, and their run file's sum). It
// is the task's .done file.
type MapResult struct {
	Task   int    `json:"task"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Rows   uint64 `json:"rows"`
	Short  uint64 `json:"short"`
	Blanks uint64 `json:"blanks"`
	// Clean says the task's last record ended at End: End is a record's
	// start, so the next task began where it had to. A guess of the plan
	// inside a quoted field makes it false.
	Clean  bool     `json:"clean"`
	Counts []uint64 `json:"counts"`
	Sums   []uint64 `json:"sums"`
}

// Map runs map task i of the plan at planPath: it scans the task's range
// of the concatenation, each part it reads checked against the plan, and
// writes the records of each partition to their run file, then the task's
// .done file. Run again, it writes the same files again.
func Map(ctx context.Context, planPath string, i int) (*MapResult, error) {
	p, err := ReadPlan(planPath)
	if err != nil {
		return nil, err
	}
	if err := p.checkTask(i); err != nil {
		return nil, err
	}
	concat, l, err := p.manifest().concat(p.manifestPath(planPath), true)
	if err != nil {
		return nil, err
	}
	defer l.close()
	defer concat.Close()
	start, end := p.Tasks[i], p.taskEnd(i)
	sink := &partitioner{runs: make([]*runWriter, p.Partitions)}
	defer sink.abort()
	for j := range sink.runs {
		if sink.runs[j], err = createRun(p.mapRun(planPath, i, j)); err != nil {
			return nil, err
		}
	}
	s := chunked.Scan{Delim: p.Delimiter[0], Plan: chunked.Plan{Threads: 1}}
	if len(p.KeyCols) == 1 {
		s.KeyCol = p.KeyCols[0]
	} else {
		s.KeyCols = p.KeyCols
	}
	var res chunked.Result
	var mp source.Mapped
	var delta int64
	if start < end { // else an update's files of headers alone: nothing to scan
		mp, delta, err = inPlace(l, check(l, p.manifestPath(planPath), true), start, end)
	}
	switch {
	case start == end:
		res.Resume = -1
	case err != nil:
		return nil, err
	case mp != nil: // one file's mapping, read in place, its offsets the file's
		defer mp.Close()
		s.Data = mp.Bytes()[:end-delta] // not s.Map: the scan would populate the whole file, not the task's range
		sink.delta = delta
		err = mp.Guard(func() (err error) {
			res, err = s.Run(ctx, int(start-delta), sink)
			return err
		})
	default: // the concatenation's windows, the range's end the input's
		s.Input = chunked.NewReaderAt(source.ReaderAt(ctx, concat), end)
		res, err = s.Run(ctx, int(start), sink)
	}
	if err != nil {
		return nil, err
	}
	r := &MapResult{Task: i, Start: start, End: end, Rows: res.Rows, Short: res.Short[0], Blanks: res.Blanks, Clean: res.Resume < 0}
	for _, rw := range sink.runs {
		sum, err := rw.commit()
		if err != nil {
			return nil, err
		}
		r.Counts, r.Sums = append(r.Counts, rw.n), append(r.Sums, sum)
	}
	sink.runs = nil
	if err := writeJSON(p.mapDone(planPath, i), r); err != nil {
		return nil, err
	}
	return r, nil
}

// partitioner is the sink of a map task's scan (sequential, so that Add
// is all it is called with): each record goes to its partition's run,
// the key hash modulo their number.
type partitioner struct {
	runs  []*runWriter
	delta int64 // what turns an offset the scan gives into the concatenation's
}

func (s *partitioner) Add(recs []sorter.Record) error {
	n := uint64(len(s.runs))
	for _, r := range recs {
		r.Offset += uint64(s.delta)
		s.runs[r.Hash%n].add(r)
	}
	return nil
}

// inPlace returns the mapping of the file of the part that holds the
// range [start, end) of the concatenation, when one part's own bytes hold
// it all (not the newline added after them) and its file is mapped (a
// local file): a scan then reads the file in place, as a build does, not
// copies of the concatenation's windows; and delta, what turns the file's
// offsets into the concatenation's. Else nil. The part is opened by open
// (and checked).
func inPlace(l partList, open func(int) (source.Source, error), start, end int64) (source.Mapped, int64, error) {
	i, err := l.find(start)
	if err != nil {
		return nil, 0, err
	}
	part, base, err := l.part(i)
	if err != nil {
		return nil, 0, err
	}
	if start < base || end > base+part.Size-part.Skip {
		return nil, 0, nil
	}
	src, err := open(i)
	if err != nil {
		return nil, 0, err
	}
	mp, ok := src.(source.Mapped)
	if !ok {
		src.Close()
		return nil, 0, nil
	}
	return mp, base - part.Skip, nil
}

func (s *partitioner) AddGroup(*sorter.Group) error {
	return fmt.Errorf("a map task's scan is sequential: it adds no group")
}

func (s *partitioner) NewDistributor() *sorter.Distributor { return nil }

func (s *partitioner) InputDone(int64, int64) {}

// abort removes the runs not committed.
func (s *partitioner) abort() {
	for _, rw := range s.runs {
		if rw != nil {
			rw.abort()
		}
	}
}

// readMapResult reads the .done file of task i of the plan p at planPath;
// errNotDone when there is none.
func (p *Plan) readMapResult(planPath string, i int) (*MapResult, error) {
	path := p.mapDone(planPath, i)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("map task %d %w: there is no %s", i, errNotDone, path)
	} else if err != nil {
		return nil, err
	}
	r := &MapResult{}
	if err := json.Unmarshal(b, r); err != nil || r.Task != i || r.Start != p.Tasks[i] || r.End != p.taskEnd(i) ||
		len(r.Counts) != p.Partitions || len(r.Sums) != p.Partitions {
		return nil, fmt.Errorf("%s: damaged, or of another plan: run map task %d again", path, i)
	}
	if !r.Clean {
		return nil, fmt.Errorf("map task %d ended inside a record: the plan guessed that one starts at %d, where a quoted field holds the line break before it; plan again with another split (--split-mib)", i, r.End)
	}
	return r, nil
}
