package multifile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/index"
)

// A VerifyResult says whether an index over many files equals a fresh
// build of its files, and how it differs.
type VerifyResult struct {
	Equal       bool     `json:"equal"`
	Differences []string `json:"differences,omitempty"`
}

// Verify checks the index whose manifest is at path against its files: each
// file must be as the manifest lists it (its size and the hashes of its
// ends), and each partition's index file must equal, page for page after
// its header page (which holds its generation), the one a fresh run of the
// four steps writes of the files, in a temporary directory, with res's
// threads running the map tasks side by side.
func Verify(ctx context.Context, path string, res index.Resources) (*VerifyResult, error) {
	m, err := ReadManifest(path)
	if err != nil {
		return nil, err
	}
	r := &VerifyResult{}
	l, err := m.list(path)
	if err != nil {
		return nil, err
	}
	defer l.close()
	open := check(l, path, true)
	names := make([]string, l.count())
	for i := range names {
		p, _, err := l.part(i)
		if err != nil {
			return nil, err
		}
		names[i] = resolve(filepath.Dir(path), p.Path)
		src, err := open(i)
		if err != nil {
			r.Differences = append(r.Differences, err.Error())
			continue
		}
		src.Close()
	}
	if len(r.Differences) > 0 {
		return r, nil
	}
	tmp, err := os.MkdirTemp("", "csvidx-verify-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bo := index.BuildOptions{Key: m.Key, NoHeader: m.NoHeader, Delimiter: m.Delimiter[0], Resources: res}
	for _, ly := range m.layers() {
		p, planPath, err := makePlan(ctx, names[:ly.parts], filepath.Join(tmp, filepath.Base(path)), &PlanOptions{BuildOptions: bo, Partitions: len(m.Partitions)}, ly.start)
		if err != nil {
			return nil, err
		}
		if err := mapAll(ctx, planPath, len(p.Tasks), res.Threads); err != nil {
			return nil, err
		}
		for j, name := range ly.partitions {
			if _, err := Reduce(ctx, planPath, j, res); err != nil {
				return nil, err
			}
			fresh, err := os.ReadFile(p.partition(planPath, j))
			if err != nil {
				return nil, err
			}
			old, err := os.ReadFile(filepath.Join(filepath.Dir(path), name))
			if err != nil {
				return nil, err
			}
			if len(old) != len(fresh) || len(old) < format.PageSize || !bytes.Equal(old[format.PageSize:], fresh[format.PageSize:]) {
				r.Differences = append(r.Differences, fmt.Sprintf("%s (partition %d): %d bytes, a fresh build's are %d, and other pages", name, j, len(old), len(fresh)))
			}
		}
		p.removeRun(planPath)
	}
	r.Equal = len(r.Differences) == 0
	return r, nil
}

// mapAll runs the n map tasks of the plan at planPath, threads of them at
// a time (the cores when 0).
func mapAll(ctx context.Context, planPath string, n, threads int) error {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	sem := make(chan struct{}, threads)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, errs[i] = Map(ctx, planPath, i)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
