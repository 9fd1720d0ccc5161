package multifile

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/csvidx/csvidx/index"
)

// Adding files to an index over many files. The new files go after the
// others in the concatenation, so that no offset of the index changes, and
// their records go to a new layer: P index files of their own, which
// lookups read after the index's own. An update indexes again, with the new
// files, every last layer that holds at most twice the new layer's bytes
// (see kept), so that layers stay few; one that reaches the first builds
// the whole index anew. An update is the four steps, with a plan that
// names the manifest it adds to (PlanUpdate): any scheduler runs it.

// PlanUpdate plans a run that adds to the index whose manifest is at path
// the files among names that it does not list (names nil: the files its
// build's patterns and list name now; see Manifest.Sources), as a new
// layer, with the same key, dialect and partitions. The files it lists
// must not have changed size, and the new files must have its header. It
// writes the plan beside the manifest and returns it, its path and the
// files added; no plan, and no files, when there is no file to add.
func PlanUpdate(ctx context.Context, path string, names []string, o *PlanOptions) (*Plan, string, []string, error) {
	old, err := ReadManifest(path)
	if err != nil {
		return nil, "", nil, err
	}
	if names == nil {
		if names, err = old.Sources.names(path); err != nil {
			return nil, "", nil, fmt.Errorf("%s: no files to look for new ones in: %w; name the files to add (csvidx update FILE... --index %s)", path, err, path)
		}
	}
	stored, err := old.storedParts(path)
	if err != nil {
		return nil, "", nil, err
	}
	added := newFiles(path, stored, withoutOwn(path, names))
	if len(added) == 0 {
		return nil, "", nil, nil
	}
	if err := old.unchanged(ctx, path); err != nil {
		return nil, "", nil, err
	}
	bo := o.BuildOptions
	bo.Key, bo.NoHeader, bo.Delimiter = old.Key, old.NoHeader, old.Delimiter[0]
	parts, err := describeAdded(ctx, added, &bo, old.Header)
	if err != nil {
		return nil, "", nil, err
	}
	p := &Plan{Format: PlanFormat, Version: PlanVersion, Run: newRun(), Manifest: filepath.Base(path), Key: old.Key,
		Delimiter: old.Delimiter, NoHeader: old.NoHeader, Header: old.Header, Partitions: len(old.Partitions),
		Sources: old.Sources, Parts: stored, Size: old.Size}
	p.add(path, added, parts)
	layers := old.layers()
	keep := kept(layers, p.Size-old.Size)
	from := int64(0)
	if keep > 0 {
		p.Base = &PlanBase{Run: old.Run, Keep: keep, Start: old.Size, FirstPart: len(stored)}
		if keep < len(layers) {
			p.Base.Start, p.Base.FirstPart = layers[keep].start, layers[keep].firstPart
		}
		from = p.Base.Start
	} else {
		p.Base = &PlanBase{Run: old.Run} // the whole index anew: as many partitions as its bytes want, if more
		p.Partitions = max(p.Partitions, autoPartitions(p.Size))
	}
	o.BuildOptions = bo
	if err := p.cut(ctx, path, from, o); err != nil {
		return nil, "", nil, err
	}
	p, planPath, err := p.write(path)
	return p, planPath, added, err
}

// newFiles returns the files among names that the parts stored (with
// their paths as a manifest at path stores them) do not list, in order.
func newFiles(path string, stored []Part, names []string) []string {
	dir := filepath.Dir(path)
	listed := map[string]bool{}
	for _, p := range stored {
		listed[fileKey(resolve(dir, p.Path))] = true
	}
	var out []string
	for _, n := range names {
		if !listed[fileKey(n)] {
			out = append(out, n)
		}
	}
	return out
}

// fileKey returns what tells one file named by name from another: its
// absolute path, or its URL.
func fileKey(name string) string {
	if isURL(name) {
		return name
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// unchanged returns an error when a part of m, the manifest at path, no
// longer has its size: the index is stale, and an update cannot mend it.
func (m *Manifest) unchanged(ctx context.Context, path string) error {
	l, err := m.list(path)
	if err != nil {
		return err
	}
	defer l.close()
	open := check(l, path, false)
	for i := range l.count() {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := open(i)
		if err != nil {
			return err
		}
		src.Close()
	}
	return nil
}

// describeAdded describes the files names as parts that follow others
// whose header is header: each without its header, which must be that
// one, byte for byte (a byte order mark aside).
func describeAdded(ctx context.Context, names []string, opts *index.BuildOptions, header []byte) ([]Part, error) {
	parts := make([]Part, len(names))
	for i, name := range names {
		p, h, err := describeOne(ctx, name, opts, false)
		if err != nil {
			return nil, err
		}
		if p.Size > 0 && !opts.NoHeader && !bytes.Equal(withoutBOM(h), withoutBOM(header)) {
			return nil, fmt.Errorf("%s: its header differs from the index's: %s, not %s; every file must have the same header", name, shown(h), shown(header))
		}
		parts[i] = p
	}
	return parts, nil
}

// UpdateOptions are an update's choices.
type UpdateOptions struct {
	// Resources bound the update's memory and threads: map tasks run
	// Threads at a time, and each reduce task has the memory.
	index.Resources
	// SplitBytes is about how many bytes a map task reads; 256 MiB when 0.
	SplitBytes int64
}

// An UpdateResult says what an update did.
type UpdateResult struct {
	// Added are the files added, none when the index had them all.
	Added []string
	// NewBytes is how many bytes they added to the concatenation.
	NewBytes int64
	// Indexed is how many bytes the update indexed: the new ones, and
	// those of the layers it indexed again with them.
	Indexed int64
	// Manifest is the manifest afterwards.
	Manifest *Manifest
}

// Update adds to the index whose manifest is at path the files among
// names it does not list (names nil: those its sources name now), as
// PlanUpdate plans, and runs the plan's steps here: map tasks side by
// side, then each reduce task, then the commit. A failed update leaves
// the index as it was, and removes what its run wrote.
func Update(ctx context.Context, path string, names []string, o *UpdateOptions) (*UpdateResult, error) {
	if o == nil {
		o = &UpdateOptions{}
	}
	p, planPath, added, err := PlanUpdate(ctx, path, names, &PlanOptions{BuildOptions: index.BuildOptions{Resources: o.Resources}, SplitBytes: o.SplitBytes})
	if err != nil {
		return nil, err
	}
	if p == nil {
		m, err := ReadManifest(path)
		return &UpdateResult{Manifest: m}, err
	}
	r := &UpdateResult{Added: added, Indexed: p.Size - p.Tasks[0]}
	for _, part := range p.Parts[len(p.Parts)-len(added):] { // the files added come last
		r.NewBytes += partLen(part)
	}
	if err := runTasks(ctx, p, planPath, o.Resources); err != nil {
		p.removeRun(planPath)
		return nil, err
	}
	if r.Manifest, _, err = Commit(ctx, planPath); err != nil {
		p.removeRun(planPath)
		return nil, err
	}
	return r, nil
}

// runTasks runs the map tasks of the plan p at planPath, res.Threads at a
// time, then its reduce tasks, one after the other.
func runTasks(ctx context.Context, p *Plan, planPath string, res index.Resources) error {
	if err := mapAll(ctx, planPath, len(p.Tasks), res.Threads); err != nil {
		return err
	}
	for j := range p.Partitions {
		if _, err := Reduce(ctx, planPath, j, res); err != nil {
			return err
		}
	}
	return nil
}

// removeRun removes every file of the run of p, whose plan is at
// planPath: its map outputs, its index files and the plan.
func (p *Plan) removeRun(planPath string) {
	for j := range p.Partitions {
		removeIndex(p.partition(planPath, j))
	}
	removeFiles(p.intermediates(planPath))
}
