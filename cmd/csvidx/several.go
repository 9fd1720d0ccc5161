package main

import (
	"errors"

	"github.com/csvidx/csvidx/index"
)

// errIndexAndBy is the error for --index and --by together.
var errIndexAndBy = errors.New("--index names an index file and --by picks one of the file's indexes: give one of them")

// targets returns the indexes a command that acts on every index of the
// CSV at csvPath acts on: the one --index or --by names, else each of the
// file's, or its default path when it has none (where the command then
// finds no index, and says so).
func (g *globals) targets(csvPath string) ([]string, error) {
	switch { // --index with --by was refused before the command ran
	case g.indexPath != "":
		return []string{g.indexPath}, nil
	case g.by != "":
		p, err := index.Locate(csvPath, g.by)
		return []string{p}, err
	}
	paths, err := index.Indexes(csvPath)
	if err != nil || len(paths) > 0 {
		return paths, err
	}
	return []string{index.DefaultIndexPath(csvPath)}, nil
}

// which names the index at path in a report, when a command acts on
// several: " (PATH)"; else nothing.
func which(paths []string, path string) string {
	if len(paths) < 2 {
		return ""
	}
	return " (" + oneLine(path) + ")"
}
