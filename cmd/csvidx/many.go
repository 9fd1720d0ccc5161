package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/source"
	"github.com/spf13/cobra"
)

// One index over many files (package multifile): build of several FILEs,
// a glob or --files-from writes a manifest at --index, which get then
// reads, as FILE or as --index, and --with-file says which file each row
// is from.

// manyFiles returns the files a build is of: args, each a path or a glob
// pattern, then the lines of the file from names (standard input for
// "-"); many says they make an index over several files: more than one
// argument, a pattern (that no file is named as), or --files-from.
func manyFiles(args []string, from string, s streams) (names []string, many bool, err error) {
	many = len(args) > 1 || from != ""
	for _, a := range args {
		many = many || multifile.IsPattern(a)
	}
	if !many {
		return args, false, nil
	}
	all := append([]string(nil), args...)
	if from != "" {
		data, err := readKeysFile(from, "--files-from", s)
		if err != nil {
			return nil, true, err
		}
		for line := range strings.Lines(string(data)) {
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				all = append(all, line)
			}
		}
	}
	names, err = multifile.Expand(all)
	return names, true, err
}

// buildMany builds the index over the files names by key, as the manifest
// at --index, which records src, how they were named, for updates; and
// returns its description as build reports it: of the files, the
// manifest.
func buildMany(ctx context.Context, names []string, src *multifile.Sources, keys []string, bo *index.BuildOptions, g *globals) ([]*index.Info, error) {
	switch {
	case g.indexPath == "":
		return nil, fmt.Errorf("an index over %d files is a manifest and its index files: give the manifest's path with --index (for example --index orders.idx)", len(names))
	case g.indexDir != "":
		return nil, errors.New("an index over several files goes where --index puts its manifest, not in --index-dir: give --index alone")
	case len(keys) > 1:
		return nil, fmt.Errorf("an index over several files is by one --key; got %d", len(keys))
	}
	bo.Key = keys[0]
	if source.IsURL(g.indexPath) {
		return buildPublished(ctx, names, bo, g.indexPath)
	}
	_, info, err := multifile.Build(ctx, names, g.indexPath, bo, src)
	if err != nil {
		return nil, err
	}
	info.CSVPath = fmt.Sprintf("%d files", len(names))
	info.IndexPath = g.indexPath
	return []*index.Info{info}, nil
}

// publishManifest, set by the remote build, publishes the index over many
// files whose manifest is at local at url (remoteindex.PublishManifest);
// nil in the other builds, which run the remote build for a URL.
var publishManifest func(ctx context.Context, local, url string) error

// buildPublished builds the index over the files names, all at URLs, in
// a temporary directory, and publishes it at url.
func buildPublished(ctx context.Context, names []string, bo *index.BuildOptions, url string) ([]*index.Info, error) {
	if publishManifest == nil {
		return nil, &needsRemoteError{path: url}
	}
	for _, n := range names {
		if !source.IsURL(n) {
			return nil, fmt.Errorf("%s is a local file, and an index published at a URL reads its files at URLs: put them in object storage, and index them by their URLs", oneLine(n))
		}
	}
	tmp, err := os.MkdirTemp("", "csvidx-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	local := filepath.Join(tmp, url[strings.LastIndex(url, "/")+1:])
	_, info, err := multifile.Build(ctx, names, local, bo, nil)
	if err != nil {
		return nil, err
	}
	if err := publishManifest(ctx, local, url); err != nil {
		return nil, err
	}
	info.CSVPath = fmt.Sprintf("%d files", len(names))
	info.IndexPath = url
	return []*index.Info{info}, nil
}

// manyIndex is an open manifest, for get, and the files that get's FILE
// names and it does not cover.
type manyIndex struct {
	*multifile.Index
	uncovered []string
}

// openMany opens the manifest at path for get, whose FILE is csvPath:
// the manifest itself, or files (a pattern) that it is the index of.
func openMany(csvPath, path string, g *globals) (opened, lookups, func() error, error) {
	if g.by != "" {
		return nil, nil, nil, fmt.Errorf("%s is an index over several files, by one key: --by picks among one file's indexes; leave it out", path)
	}
	x, err := multifile.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	m := &manyIndex{Index: x}
	if csvPath != path {
		m.uncovered = uncovered(x.Manifest(), path, csvPath)
	}
	return m, m, x.Close, nil
}

// uncovered returns the files that pattern names and the manifest m, at
// path, does not list.
func uncovered(m *multifile.Manifest, path, pattern string) []string {
	names, err := multifile.Expand([]string{pattern})
	if err != nil {
		return nil
	}
	parts, err := m.AllParts(path)
	if err != nil {
		return nil
	}
	listed := map[string]bool{}
	for _, p := range parts {
		if abs, err := filepath.Abs(p.Path); err == nil {
			listed[abs] = true
		}
	}
	var out []string
	for _, n := range names {
		if abs, err := filepath.Abs(n); err == nil && !listed[abs] {
			out = append(out, n)
		}
	}
	return out
}

// getWithFile writes each row of keys after the path of the file it is
// from, as a first field in the files' dialect, and a header with a first
// field "file" before them when header is set.
func getWithFile(look lookups, ix opened, keys [][]byte, header bool, w *bufio.Writer, matched *bool) error {
	m, ok := look.(*manyIndex)
	if !ok {
		return errors.New("--with-file says which file each row of an index over several files is from; this index is of one file")
	}
	delim := ix.Delimiter()
	if header {
		h, err := ix.Header()
		if err != nil {
			return err
		}
		w.WriteString("file")
		w.WriteByte(delim)
		w.Write(h)
	}
	return m.Each(keys, func(r multifile.Row) error {
		*matched = true
		w.Write(csvField(r.Path, delim))
		w.WriteByte(delim)
		_, err := w.Write(r.Bytes)
		return err
	})
}

// csvField returns v as a field of a CSV record with delimiter delim:
// quoted, its quotes doubled, when it holds delim, a quote or a line end.
func csvField(v string, delim byte) []byte {
	if !strings.ContainsAny(v, string([]byte{delim, '"', '\r', '\n'})) {
		return []byte(v)
	}
	return append(append([]byte{'"'}, bytes.ReplaceAll([]byte(v), []byte(`"`), []byte(`""`))...), '"')
}

// addFilesFromFlag adds build's --files-from to cmd.
func addFilesFromFlag(cmd *cobra.Command, from *string) {
	cmd.Flags().StringVar(from, "files-from", "", "index, with the FILEs, the files `PATH` lists, one per line ('-': standard input), as one CSV (needs --index for the manifest)")
}

// manifestArg returns the manifest of an index over many files that a
// command names: --index when it names one, else FILE when it is one; ""
// for an index of one file. (get checks FILE only when FILE has no index
// of its own, sparing its lookups the read.)
func manifestArg(file string, g *globals) string {
	switch {
	case g.indexPath != "":
		if multifile.IsManifest(g.indexPath) {
			return g.indexPath
		}
	case multifile.IsManifest(file):
		return file
	}
	return ""
}

// verifyMany verifies the index over many files of the manifest at path
// (see multifile.Verify) and reports it as verify does.
func verifyMany(ctx context.Context, path string, res index.Resources, s streams) error {
	r, err := multifile.Verify(ctx, path, res)
	if err != nil {
		return err
	}
	if r.Equal {
		fmt.Fprintf(s.out, "ok: the index over many files of %s equals a fresh build\n", oneLine(path))
		return nil
	}
	fmt.Fprintf(s.out, "the index over many files of %s differs from a fresh build:\n", oneLine(path))
	for _, d := range r.Differences {
		fmt.Fprintf(s.out, "  %s\n", oneLine(d))
	}
	if m, err := multifile.ReadManifest(path); err == nil {
		fmt.Fprintf(s.out, "rebuild it: csvidx build FILE... --key %s --index %s (or plan, map, reduce and commit again)\n", shellQuote(m.Key), shellQuote(path))
	}
	return errNoMatch
}

// manyInfo describes the index over many files of the manifest at path as
// info describes an index: its key and dialect, its files' rows, its
// partitions' bytes (see multifile.Index.Info), the manifest for the CSV
// and the index.
func manyInfo(path string) ([]*index.Info, error) {
	x, err := multifile.Open(path)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	info := x.Info()
	if info.Error != "" {
		return nil, errors.New(info.Error)
	}
	info.CSVPath = fmt.Sprintf("%s (%d files)", path, x.Manifest().PartCount)
	info.Fence = fmt.Sprintf("beside each index file (%s)", plural(int64(len(x.Manifest().Partitions)), "partition"))
	if n := len(x.Manifest().Layers); n > 0 {
		info.Fence = fmt.Sprintf("beside each index file (%s, in %d layers)", plural(int64(len(x.Manifest().Partitions)), "partition"), n+1)
	}
	return []*index.Info{info}, nil
}

// manifestFlag returns --index, which command needs to be the path of a
// manifest.
func manifestFlag(g *globals, command string) (string, error) {
	switch {
	case g.indexPath == "":
		return "", fmt.Errorf("%s needs --index MANIFEST, the index over many files to add to", command)
	case source.IsURL(g.indexPath):
		return "", fmt.Errorf("%s: --index %s is at a URL, and an index over many files there is not updated in place: build it again with --index %s (its files at URLs), or update a local copy and commit it with --publish", command, oneLine(g.indexPath), oneLine(g.indexPath))
	case !multifile.IsManifest(g.indexPath):
		return "", fmt.Errorf("%s: --index %s is no index over many files (a manifest): build it first (csvidx build 'FILES*' --key K --index %s)", command, oneLine(g.indexPath), oneLine(g.indexPath))
	}
	return g.indexPath, nil
}

// filesToAdd returns the files an update of an index over many files adds
// (those it lists are passed over): those args and from name, expanded;
// nil, when they name none, for the files its build's pattern or list
// names now.
func filesToAdd(args []string, from string, s streams) ([]string, error) {
	if len(args) == 0 && from == "" {
		return nil, nil
	}
	names, _, err := manyFiles(args, from, s)
	return names, err
}
