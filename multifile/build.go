package multifile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/source"
)

// Build indexes the files names (see Expand) as one CSV by opts.Key, and
// writes the manifest at path (opts.IndexPath is ignored) with one
// partition, an index file beside it named after the run. The manifest it
// replaces, and then that one's index files, go only once the new ones
// are whole; a file at path that is not a manifest is never replaced. The
// manifest records src, how the files were named, for updates (see
// NewSources); src may be nil. It returns the manifest and the index
// file's description.
func Build(ctx context.Context, names []string, path string, opts *index.BuildOptions, src *Sources) (*Manifest, *index.Info, error) {
	if opts == nil {
		opts = &index.BuildOptions{}
	}
	lock, err := index.LockFile(path, false) // as Commit does
	if err != nil {
		return nil, nil, err
	}
	defer lock.Unlock()
	old, err := replaceable(path)
	if err != nil {
		return nil, nil, err
	}
	if names = withoutOwn(path, names); len(names) == 0 {
		return nil, nil, fmt.Errorf("no file to index but csvidx's own, of %s", path)
	}
	parts, header, err := describe(ctx, names, opts)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(path)
	m := &Manifest{Format: FormatName, Version: Version, Run: newRun(), Key: opts.Key, NoHeader: opts.NoHeader, Header: header, Sources: src.relative(dir)}
	delim := opts.Delimiter
	if delim == 0 {
		delim = index.DefaultDelimiter(names[0])
	}
	m.Delimiter = string([]byte{delim})
	for i, p := range parts {
		p.Path = relativeTo(dir, names[i])
		m.Parts = append(m.Parts, p)
		m.Size += partLen(p)
	}
	concat, l, err := m.concat(path, false)
	if err != nil {
		return nil, nil, err
	}
	defer l.close()
	part := partitionName(path, m.Run, 0)
	bo := *opts
	bo.Delimiter, bo.IndexPath = delim, filepath.Join(dir, part)
	info, err := index.BuildFrom(ctx, concat, &bo)
	if err != nil {
		return nil, nil, err
	}
	m.Partitions = []string{part}
	if err := m.write(path); err != nil {
		removeIndex(bo.IndexPath)
		return nil, nil, err
	}
	old.removeBut(dir, m) // best effort: its files are no one's now
	return m, info, nil
}

// replaceable returns the manifest at path, nil when there is none (or
// one too damaged to read); an error when a file is there that is not a
// manifest, which a build never replaces.
func replaceable(path string) (*Manifest, error) {
	m, err := ReadManifest(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, ErrNotManifest):
		return nil, fmt.Errorf("%s is not a csvidx manifest; csvidx replaces only its own files: move it away, or give another path (--index)", path)
	case err != nil && IsManifest(path):
		return nil, nil // a damaged manifest is csvidx's to replace; its files are not known
	}
	return m, err
}

// concat returns the concatenation of m's parts, m being the manifest at
// path, named after it (its path); with hashes, each part is checked
// against the hashes of its ends when first read, else its size only (a
// build, which hashed them just before). It returns the list of parts it
// reads, which the caller closes once the concatenation is closed.
func (m *Manifest) concat(path string, hashes bool) (*source.Concat, partList, error) {
	l, err := m.list(path)
	if err != nil {
		return nil, nil, err
	}
	return m.concatOn(l, path, layer{end: m.Size, parts: l.count()}, hashes, nil), l, nil
}

// newRun returns a name for a build, unlike any other's: the time, and
// random bits (math/rand's: crypto/rand's initialisation would cost every
// local lookup's process).
func newRun() string {
	return fmt.Sprintf("%s-%08x", time.Now().UTC().Format("20060102T150405"), rand.Uint32())
}

// partitionName returns the name of partition j's index file of the run
// run of the manifest at path: BASE.RUN.p-J.csvidx, beside it.
func partitionName(path, run string, j int) string {
	return fmt.Sprintf("%s.%s.p-%d.csvidx", filepath.Base(path), run, j)
}

// relativeTo returns name relative to dir when both are local paths and
// it can be, so that the manifest and its files can move together; else
// name as it is.
func relativeTo(dir, name string) string {
	if isURL(name) {
		return name
	}
	absDir, err1 := filepath.Abs(dir)
	abs, err2 := filepath.Abs(name)
	if err1 != nil || err2 != nil {
		return name
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// removeBut removes the files of m, a manifest that now replaces, in
// the manifest's directory dir, that now does not list: its index files
// (with their fences and tails) and its parts table. A nil m has none.
func (m *Manifest) removeBut(dir string, now *Manifest) {
	if m == nil {
		return
	}
	keep := map[string]bool{now.PartsFile: true}
	for _, p := range now.files() {
		keep[p] = true
	}
	for _, p := range m.files() {
		if !keep[p] {
			removeIndex(filepath.Join(dir, p))
		}
	}
	if m.PartsFile != "" && !keep[m.PartsFile] {
		removeFile(filepath.Join(dir, m.PartsFile))
	}
}

// removeIndex removes the index file at path, its fence and its tail,
// those there are.
func removeIndex(path string) {
	for _, p := range []string{path, path + ".fence", path + ".tail"} {
		removeFile(p)
	}
}

// removeFile removes the file at path, if it is there: best effort, for
// files no one needs any more.
func removeFile(path string) { atomicfile.Remove(path) }

// removeFiles removes the files at paths as removeFile does, a few at a
// time: a commit removes gigabytes of run files, whose unlinking waits on
// the file system.
func removeFiles(paths []string) {
	var wg sync.WaitGroup
	next := make(chan string)
	for range min(len(paths), 8) {
		wg.Go(func() {
			for p := range next {
				removeFile(p)
			}
		})
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
}
