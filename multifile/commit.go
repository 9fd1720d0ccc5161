package multifile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/csvidx/csvidx/index"
)

// Commit publishes the run of the plan at planPath: once every map task
// has run and ended where the next began, every partition's index file is
// there, whole and of this run, their rows add up to the map tasks', and
// no file changed size since the plan, it writes the manifest, which
// names this run's index files and no others, atomically; then it removes
// the run's map outputs and its plan, and the index files of the manifest
// it replaced. Files of other runs (an aborted one) are never read, and
// never removed but by the commit of the manifest that names them being
// replaced. Commits and builds of one manifest take its lock (M.lock, see
// index.LockFile) and run one at a time. It returns the manifest and its
// path.
func Commit(ctx context.Context, planPath string) (*Manifest, string, error) {
	p, err := ReadPlan(planPath)
	if err != nil {
		return nil, "", err
	}
	path := p.manifestPath(planPath)
	lock, err := index.LockFile(path, false) // one commit or build of the manifest at a time: the base checked stays the one replaced
	if err != nil {
		return nil, "", err
	}
	defer lock.Unlock()
	old, err := replaceable(path)
	if err != nil {
		return nil, "", err
	}
	if err := p.Base.check(old, path); err != nil {
		return nil, "", err
	}
	rows := uint64(0)
	for i := range p.Tasks {
		r, err := p.readMapResult(planPath, i)
		if err != nil {
			return nil, "", err
		}
		rows += r.Rows
	}
	m := p.manifest()
	l, err := m.list(path) // m.Parts, in memory: nothing to close
	if err != nil {
		return nil, "", err
	}
	opener := check(l, path, false)
	for i := range m.Parts {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		src, err := opener(i) // its size, as planned
		if err != nil {
			return nil, "", err
		}
		src.Close()
	}
	indexed := uint64(0)
	for j := range p.Partitions {
		if _, err := os.Stat(p.partition(planPath, j)); err != nil {
			return nil, "", fmt.Errorf("reduce task %d %w: there is no %s", j, errNotDone, p.partition(planPath, j))
		}
		concat, _, err := m.concat(path, true) // a list in memory: nothing to close
		if err != nil {
			return nil, "", err
		}
		ix, err := index.Open(concat.Name(), &index.Options{IndexPath: p.partition(planPath, j), CSV: concat})
		if err != nil {
			return nil, "", fmt.Errorf("partition %d: %w (run its reduce task)", j, err)
		}
		info := ix.Info()
		ix.Close()
		indexed += uint64(info.Rows)
		m.Partitions = append(m.Partitions, filepath.Base(p.partition(planPath, j)))
	}
	if indexed != rows {
		return nil, "", fmt.Errorf("the partitions' index files hold %d rows, and the map tasks read %d: run the reduce tasks again", indexed, rows)
	}
	if b := p.Base; b != nil && b.Keep > 0 { // the new layer after those kept
		top := Layer{Run: p.Run, Start: b.Start, FirstPart: b.FirstPart, Partitions: m.Partitions}
		m.Partitions, m.Layers = old.Partitions, append(slices.Clone(old.Layers[:b.Keep-1]), top)
	}
	if err := m.write(path); err != nil {
		return nil, "", err
	}
	removeFiles(p.intermediates(planPath)) // no one's now
	old.removeBut(filepath.Dir(path), m)
	return m, path, nil
}

// check returns an error unless old, the manifest at path, is the one
// the update whose base b is adds to; b nil, a plan of a build, adds to
// none.
func (b *PlanBase) check(old *Manifest, path string) error {
	switch {
	case b == nil:
		return nil
	case old == nil:
		return fmt.Errorf("the plan updates %s of run %s, which is gone: plan again", path, b.Run)
	case old.Run != b.Run:
		return fmt.Errorf("the plan updates %s of run %s, which run %s has replaced since: plan the update again", path, b.Run, old.Run)
	case b.Keep > len(old.Layers)+1:
		return fmt.Errorf("the plan keeps %d layers of %s, which has %d: plan again", b.Keep, path, len(old.Layers)+1)
	}
	return nil
}

// intermediates returns the paths of the files of the run of p, whose plan
// is at planPath, that its commit removes: its map outputs and its plan.
func (p *Plan) intermediates(planPath string) []string {
	var out []string
	for i := range p.Tasks {
		for j := range p.Partitions {
			out = append(out, p.mapRun(planPath, i, j))
		}
		out = append(out, p.mapDone(planPath, i))
	}
	return append(out, planPath)
}
