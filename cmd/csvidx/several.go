package main

import (
	"errors"
	"os"

	"github.com/csvidx/csvidx/index"
	"github.com/spf13/cobra"
)

// indexDirEnv is the environment variable that gives --index-dir's
// default: a directory to keep indexes in, for CSVs in directories the
// user cannot write. The flag wins over it, and --index over both.
const indexDirEnv = "CSVIDX_INDEX_DIR"

// addIndexDirFlag adds the global flag --index-dir to root, into g.
func addIndexDirFlag(root *cobra.Command, g *globals) {
	root.PersistentFlags().StringVar(&g.indexDir, "index-dir", os.Getenv(indexDirEnv),
		"keep the indexes in `DIR`, named after FILE's absolute path, not next to FILE (default $"+indexDirEnv+")")
}

// errIndexAndBy is the error for --index and --by together.
var errIndexAndBy = errors.New("--index names an index file and --by picks one of the file's indexes: give one of them")

// targets returns the indexes a command that acts on every index of the
// CSV at csvPath acts on: the one --index or --by names, else each of the
// file's, or its default path when it has none (where the command then
// finds no index, and says so).
func (g *globals) targets(csvPath string) ([]string, error) {
	if g.indexPath != "" { // --index with --by was refused before the command ran
		return []string{g.indexPath}, nil
	}
	h, err := index.HomeOf(csvPath, g.indexDir)
	if err != nil {
		return nil, err
	}
	if g.by != "" {
		p, err := h.Locate(g.by)
		return []string{p}, err
	}
	paths, err := h.Indexes()
	if err != nil || len(paths) > 0 {
		return paths, err
	}
	return []string{h.DefaultIndexPath()}, nil
}

// which names the index at path in a report, when a command acts on
// several: " (PATH)"; else nothing.
func which(paths []string, path string) string {
	if len(paths) < 2 {
		return ""
	}
	return " (" + oneLine(path) + ")"
}
