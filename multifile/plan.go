package multifile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/source"
)

// The four steps that build an index over many files on any scheduler:
// Plan (here), Map, Reduce and Commit. A plan is a JSON file beside the
// manifest, named after its run (M.RUN.plan); every output of the run is
// named after the run and its task (see the names below), written
// atomically, and the same whoever writes it, so that a task run twice, or
// again after a failure, does no harm; Commit publishes only what the plan
// names.

// PlanFormat is a plan's first field's value.
const PlanFormat = "csvidx-plan"

// PlanVersion is the version of the plans this package writes, and the
// only one it reads: a plan lives as long as its run.
const PlanVersion = 2

// A Plan is a run of the four steps: the parts, the tasks of Map (ranges
// of the concatenation, each starting at a record), and the partitions
// Reduce writes.
type Plan struct {
	Format  string `json:"format"` // PlanFormat
	Version int    `json:"version"`
	Run     string `json:"run"`
	// Manifest is the base name of the manifest's path: the plan and
	// every output of its run are beside it.
	Manifest  string `json:"manifest"`
	Key       string `json:"key"`
	KeyCols   []int  `json:"key_columns"`
	Delimiter string `json:"delimiter"`
	NoHeader  bool   `json:"no_header,omitempty"`
	Header    []byte `json:"header,omitempty"`
	// Start is where the concatenation's data records start, past the
	// header; Size is its size.
	Start int64  `json:"start"`
	Size  int64  `json:"size"`
	Parts []Part `json:"parts"`
	// Partitions is how many index files Reduce writes.
	Partitions int `json:"partitions"`
	// Tasks are Map's ranges of the concatenation, in order: task i
	// reads the records from Tasks[i] up to the next task's start (the
	// concatenation's end for the last). The first starts at Start, or
	// for an update's plan, at its layer's start.
	Tasks []int64 `json:"tasks"`
	// Sources are the manifest's (see Manifest.Sources).
	Sources *Sources `json:"sources,omitempty"`
	// Base, in the plan of an update, is the manifest the run adds a
	// layer to.
	Base *PlanBase `json:"base,omitempty"`
}

// A PlanBase is the manifest that an update's run adds a layer to: its
// run, which must still be the one published when the update commits,
// how many of its layers the update keeps (the rest it indexes again with
// the new files: see kept), and where the new layer starts, in bytes of
// the concatenation and in parts.
type PlanBase struct {
	Run       string `json:"run"`
	Keep      int    `json:"keep"`
	Start     int64  `json:"start"`
	FirstPart int    `json:"first_part"`
}

// PlanOptions are a plan's choices.
type PlanOptions struct {
	index.BuildOptions
	// Partitions is how many index files the index has; when 0, one per
	// PartitionBytes of the files (see autoPartitions).
	Partitions int
	// SplitBytes is about how many bytes of the concatenation a map task
	// reads; 256 MiB when 0.
	SplitBytes int64
	// Sources, when set, say how the files were named, for updates (see
	// Manifest.Sources); their Dir is the current directory's path.
	Sources *Sources
}

// DefaultSplit is a map task's share of the concatenation unless
// PlanOptions.SplitBytes says otherwise.
const DefaultSplit = 256 << 20

// MakePlan plans a run that indexes the files names (see Expand) as one
// CSV by o.Key, with its manifest at path: it checks the files' headers,
// resolves the key, cuts the concatenation into map tasks at guessed
// record starts, and writes the plan beside the manifest. It returns the
// plan and its path.
func MakePlan(ctx context.Context, names []string, path string, o *PlanOptions) (*Plan, string, error) {
	return makePlan(ctx, names, path, o, 0)
}

// makePlan is MakePlan with map tasks from offset from of the
// concatenation (its data's start when later).
func makePlan(ctx context.Context, names []string, path string, o *PlanOptions, from int64) (*Plan, string, error) {
	if o.Partitions > maxPartitions {
		return nil, "", fmt.Errorf("%d partitions: give at most %d", o.Partitions, maxPartitions)
	}
	if _, err := replaceable(path); err != nil {
		return nil, "", err
	}
	if names = withoutOwn(path, names); len(names) == 0 {
		return nil, "", fmt.Errorf("no file to index but csvidx's own, of %s", path)
	}
	parts, header, err := describe(ctx, names, &o.BuildOptions)
	if err != nil {
		return nil, "", err
	}
	delim := o.Delimiter
	if delim == 0 {
		delim = index.DefaultDelimiter(names[0])
	}
	p := &Plan{Format: PlanFormat, Version: PlanVersion, Run: newRun(), Manifest: filepath.Base(path), Key: o.Key,
		Delimiter: string([]byte{delim}), NoHeader: o.NoHeader, Header: header, Partitions: o.Partitions,
		Sources: o.Sources.relative(filepath.Dir(path))}
	p.add(path, names, parts)
	if p.Partitions <= 0 {
		p.Partitions = autoPartitions(p.Size)
	}
	if err := p.cut(ctx, path, from, o); err != nil {
		return nil, "", err
	}
	return p.write(path)
}

// add appends to p's parts those the files names make, with paths
// relative to the directory of the manifest at path when they can be.
func (p *Plan) add(path string, names []string, parts []Part) {
	for i, part := range parts {
		part.Path = relativeTo(filepath.Dir(path), names[i])
		p.Parts = append(p.Parts, part)
		p.Size += partLen(part)
	}
}

// cut resolves p's key and cuts p's concatenation, from its data's start
// or from when later, into map tasks of about o.SplitBytes.
func (p *Plan) cut(ctx context.Context, path string, from int64, o *PlanOptions) error {
	split := o.SplitBytes
	if split <= 0 {
		split = DefaultSplit
	}
	concat, l, err := p.manifest().concat(path, false)
	if err != nil {
		return err
	}
	defer l.close()
	defer concat.Close()
	bo := o.BuildOptions
	bo.Key, bo.NoHeader, bo.Delimiter = p.Key, p.NoHeader, p.Delimiter[0]
	start, cols, err := index.DataStart(concat, &bo)
	if err != nil {
		return err
	}
	p.Start, p.KeyCols = start, cols
	p.Tasks, err = tasks(concat, p.Delimiter[0], max(start, from), split)
	return err
}

// write writes p beside the manifest at path, and returns it and its
// path.
func (p *Plan) write(path string) (*Plan, string, error) {
	planPath := filepath.Join(filepath.Dir(path), p.Manifest+"."+p.Run+".plan")
	if err := writeJSON(planPath, p); err != nil {
		return nil, "", err
	}
	return p, planPath, nil
}

// maxPartitions bounds a plan's partitions: a map task holds a file open
// for each.
const maxPartitions = 4096

// PartitionBytes is how many bytes of the files a partition indexes when
// the plan is not told how many partitions to make: about 20M rows of 55
// bytes, whose records fit a reduce's memory at the default limit over
// two workers (512 MiB) without spilling, which costs more than the reduce
// tasks' start-ups (docs/distributed.md, "Figures": 8 partitions of 5.6 GB
// took 0.56 of the time 2 did).
const PartitionBytes = 1 << 30

// autoPartitions returns the partitions of an index over size bytes: one
// per PartitionBytes, at least 1, at most maxPartitions.
func autoPartitions(size int64) int {
	return int(min(max(1, (size+PartitionBytes-1)/PartitionBytes), maxPartitions))
}

// tasks returns the starts of the map tasks of the concatenation c, whose
// records start at start: a task every split bytes, at the record start
// guessed there, a task in which no record starts left out.
func tasks(c *source.Concat, delim byte, start, split int64) ([]int64, error) {
	if start >= c.Size() {
		return []int64{c.Size()}, nil // an update's files of headers alone: one task, of nothing
	}
	var cuts []int
	for b := start + split; b < c.Size(); b += split {
		cuts = append(cuts, int(b))
	}
	s := chunked.Scan{Delim: delim, Input: chunked.NewReaderAt(source.ReaderAt(context.Background(), c), c.Size())}
	guesses, err := s.GuessStarts(int(start), cuts)
	if err != nil {
		return nil, err
	}
	out := []int64{start}
	for _, g := range guesses {
		if g := int64(g); g > out[len(out)-1] && g < c.Size() {
			out = append(out, g)
		}
	}
	return out, nil
}

// manifest returns the manifest the plan's run commits, short of its
// partitions.
func (p *Plan) manifest() *Manifest {
	return &Manifest{Format: FormatName, Version: Version, Run: p.Run, Key: p.Key, Delimiter: p.Delimiter,
		NoHeader: p.NoHeader, Header: p.Header, Size: p.Size, Parts: p.Parts, Sources: p.Sources}
}

// taskEnd returns where task i's range ends.
func (p *Plan) taskEnd(i int) int64 {
	if i+1 < len(p.Tasks) {
		return p.Tasks[i+1]
	}
	return p.Size
}

// ReadPlan reads the plan at path.
func ReadPlan(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	if !bytes.HasPrefix(b, []byte(`{"format":"`+PlanFormat+`"`)) {
		return nil, fmt.Errorf("%s: not a csvidx plan", path)
	}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("%s: a damaged csvidx plan (%v): plan again", path, err)
	}
	switch {
	case p.Version != PlanVersion:
		return nil, fmt.Errorf("%s: a plan of version %d, which this csvidx does not read (it reads version %d): plan again", path, p.Version, PlanVersion)
	case len(p.Parts) == 0 || len(p.Tasks) == 0 || p.Partitions < 1 || p.Partitions > maxPartitions || !slices.IsSorted(p.Tasks) || len(p.Delimiter) != 1:
		return nil, fmt.Errorf("%s: a damaged csvidx plan: plan again", path)
	}
	return p, nil
}

// The names of a run's files, beside its plan (whose path is planPath):
// BASE.RUN.map-I.p-J holds task I's records of partition J, and
// BASE.RUN.map-I.done says the task is done, and what it found;
// BASE.RUN.p-J.csvidx is partition J's index file.
func (p *Plan) mapRun(planPath string, task, part int) string {
	return filepath.Join(filepath.Dir(planPath), fmt.Sprintf("%s.%s.map-%d.p-%d", p.Manifest, p.Run, task, part))
}

func (p *Plan) mapDone(planPath string, task int) string {
	return filepath.Join(filepath.Dir(planPath), fmt.Sprintf("%s.%s.map-%d.done", p.Manifest, p.Run, task))
}

func (p *Plan) partition(planPath string, part int) string {
	return filepath.Join(filepath.Dir(planPath), partitionName(p.Manifest, p.Run, part))
}

// manifestPath returns the path of the manifest the plan at planPath
// commits.
func (p *Plan) manifestPath(planPath string) string {
	return filepath.Join(filepath.Dir(planPath), p.Manifest)
}

// checkTask returns an error unless i is one of p's tasks.
func (p *Plan) checkTask(i int) error {
	if i < 0 || i >= len(p.Tasks) {
		return fmt.Errorf("task %d: the plan has tasks 0 to %d", i, len(p.Tasks)-1)
	}
	return nil
}

// checkPartition returns an error unless j is one of p's partitions.
func (p *Plan) checkPartition(j int) error {
	if j < 0 || j >= p.Partitions {
		return fmt.Errorf("partition %d: the plan has partitions 0 to %d", j, p.Partitions-1)
	}
	return nil
}

// writeJSON writes v at path atomically, as compact JSON.
func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	out, err := atomicfile.Create(path, false, 0o644)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := out.Write(append(b, '\n')); err != nil {
		return err
	}
	return out.Commit()
}

// errNotDone means a task's output is not there.
var errNotDone = errors.New("has not run")
