package index

import (
	"context"
	"fmt"

	"github.com/csvidx/csvidx/source"
)

// What package multifile needs to index several files as one CSV (a
// source.Concat): where each file's records start, past its header, and a
// build of a CSV given as a source, whose files the caller names and
// guards.

// DataStart returns where the records of the CSV src holds start: past its
// header record (and a byte order mark or blank lines before it), as a
// build with opts' dialect finds it; 0 with opts.NoHeader. With opts.Key
// set, it also resolves the key against the header: its columns, 0-based.
// It reads the first records only, and leaves src open.
func DataStart(src source.Source, opts *BuildOptions) (int64, []int, error) {
	if opts == nil {
		opts = &BuildOptions{}
	}
	sp, err := opts.spec(src.Name())
	if err != nil {
		return 0, nil, err
	}
	c := &csvFile{src: src, size: int(src.Size())}
	if c.head, err = readHead(src, sp.delim); err != nil {
		return 0, nil, err
	}
	if opts.Key == "" {
		sp.keyCols = []int{0} // any: only the header's end is wanted
	}
	h, start, err := mainHeader(c, &sp)
	if err != nil {
		return 0, nil, err
	}
	if opts.Key == "" {
		return int64(start), nil, nil
	}
	return int64(start), h.KeyColumns(), nil
}

// BuildFrom builds the index by opts.Key of the CSV src holds at
// opts.IndexPath, which it replaces atomically, as Build does, naming the
// CSV by src.Name(). It takes no lock and places no index: its caller
// names and guards the files (package multifile, whose src is a
// source.Concat). It closes src.
func BuildFrom(ctx context.Context, src source.Source, opts *BuildOptions) (_ *Info, err error) {
	if opts == nil {
		opts = &BuildOptions{} // no index path: an error
	}
	defer namePath(&err, src.Name(), opts.IndexPath)
	csv, sp, err := openGiven("BuildFrom", src, opts)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	var specs []spec
	if err := csv.guard(func() (err error) {
		specs, err = keySpecs(csv, sp, []string{opts.Key})
		return err
	}); err != nil {
		return nil, err
	}
	csv.releaseAfterScan = true
	p := &pipeline{csv: csv, spec: specs[0], res: opts.Resources, progress: opts.Progress}
	bs, err := p.writeMains(ctx, specs, []string{opts.IndexPath})
	if err != nil {
		return nil, err
	}
	b := bs[0]
	info := newInfo(src.Name(), opts.IndexPath, b.h, int64(b.h.Size()), int64(b.h.Scanned))
	info.Build = b.scan
	info.setState()
	return info, nil
}

// openGiven opens the CSV src holds for fn (BuildFrom, WriteRecords),
// which writes the index opts.IndexPath names, in opts' dialect; on an
// error it closes src.
func openGiven(fn string, src source.Source, opts *BuildOptions) (*csvFile, spec, error) {
	if opts.IndexPath == "" {
		src.Close()
		return nil, spec{}, fmt.Errorf("%s: no index path", fn)
	}
	sp, err := opts.spec(src.Name())
	if err == nil {
		err = opts.Resources.Validate()
	}
	if err != nil {
		src.Close()
		return nil, spec{}, err
	}
	csv, err := fromSource(src, sp.delim, true) // closes src on an error
	return csv, sp, err
}
