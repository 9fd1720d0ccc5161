package multifile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NewSources returns how a build names its files, for an update to look
// for new ones the same way: the patterns among args (see IsPattern) and
// the list file from (not standard input, "-"), read in the current
// directory; nil when they name no pattern and no list.
func NewSources(args []string, from string) *Sources {
	s := &Sources{}
	for _, a := range args {
		if IsPattern(a) {
			s.Patterns = append(s.Patterns, a)
		}
	}
	if from != "-" {
		s.FilesFrom = from
	}
	if len(s.Patterns) == 0 && s.FilesFrom == "" {
		return nil
	}
	s.Dir, _ = os.Getwd()
	return s
}

// relative returns s with its Dir relative to dir, the manifest's
// directory, when it can be, so that the two can move together.
func (s *Sources) relative(dir string) *Sources {
	if s == nil {
		return nil
	}
	r := *s
	r.Dir = relativeTo(dir, s.Dir)
	return &r
}

// errNoSources means a manifest records no pattern or list to look for
// new files in.
var errNoSources = errors.New("its build named each file, by no pattern or list")

// names returns the files that s, the sources of the manifest at path,
// name now: the matches of its patterns, then the lines of its list, each
// relative path taken in s.Dir, as the build took it.
func (s *Sources) names(path string) ([]string, error) {
	if s == nil {
		return nil, errNoSources
	}
	dir := resolve(filepath.Dir(path), s.Dir)
	in := func(p string) string {
		if filepath.IsAbs(p) || isURL(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	var args []string
	for _, p := range s.Patterns {
		args = append(args, in(p))
	}
	if s.FilesFrom != "" {
		data, err := os.ReadFile(in(s.FilesFrom))
		if err != nil {
			return nil, fmt.Errorf("the list of files the index was built from: %w", err)
		}
		for line := range strings.Lines(string(data)) {
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				args = append(args, in(line))
			}
		}
	}
	return Expand(args)
}

// withoutOwn returns names but for the files of the index whose manifest
// is at path, which a pattern that matches the manifest's directory names
// too: the manifest, the files beside it whose names start with its own
// and a dot (its parts table, index files, fences, plans, runs, lock), and
// any other manifest. csvidx never indexes its own files as CSV.
func withoutOwn(path string, names []string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return names
	}
	dir, base := filepath.Split(abs)
	var out []string
	for _, n := range names {
		if !isURL(n) {
			if a, err := filepath.Abs(n); err == nil {
				d, b := filepath.Split(a)
				if d == dir && (b == base || strings.HasPrefix(b, base+".")) || IsManifest(n) {
					continue
				}
			}
		}
		out = append(out, n)
	}
	return out
}
