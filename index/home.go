package index

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/source"
)

// Where the indexes of a CSV live.
//
// Next to the CSV unless told otherwise: CSV.csvidx and the by- names
// CSV.by-COLS.csvidx (see several.go). A CSV in a directory its user
// cannot write may have its indexes in an index directory instead
// (csvidx --index-dir DIR, or CSVIDX_INDEX_DIR). There they are named
// after the CSV's absolute, cleaned path, so that two CSVs of one base
// name in different directories cannot meet:
//
//	/data/2024/orders.csv  ->  DIR/orders.csv.HASH.csvidx, DIR/orders.csv.HASH.by-1.csvidx, ...
//
// where HASH is XXH3-64 of "/data/2024/orders.csv" in 16 hex digits. The
// path is not resolved through symbolic links, so that it can be named
// after the CSV is gone (for drop): a CSV reached by two paths has an
// index per path. A CSV moved or renamed has no index in DIR under its new
// path: build it again; drop with the old path removes the old one. A CSV
// at a URL is named after its URL as given (https://host/d/orders.csv ->
// DIR/orders.csv.HASH.csvidx, HASH of the whole URL).
//
// Everything else is as next to the CSV: the base name of the stem
// (orders.csv.HASH) takes the place of the CSV's in every name, the first
// index is the default, the by- indexes share the first's lock. --index
// PATH names one index file anywhere, outside either scheme.

// ErrIndexDir means the index directory given does not exist or is not a
// directory.
var ErrIndexDir = errors.New("no index directory")

// A Home is where the indexes of a CSV live: next to it, or in an index
// directory. Its stem is the path their names begin with: the CSV's path,
// or DIR/BASE.HASH.
type Home struct {
	csvPath string
	stem    string
}

// HomeOf returns where the indexes of the CSV at csvPath live: in
// indexDir, or next to the CSV when indexDir is empty. The CSV need not
// exist; indexDir must be a directory.
func HomeOf(csvPath, indexDir string) (Home, error) {
	if indexDir == "" {
		return nextTo(csvPath), nil
	}
	switch st, err := os.Stat(indexDir); {
	case errors.Is(err, os.ErrNotExist):
		return Home{}, fmt.Errorf("%w %s %s: it does not exist; create it, or give another", ErrIndexDir, indexDir, OptIndexDir)
	case err != nil:
		return Home{}, fmt.Errorf("%w %s: %w", ErrIndexDir, OptIndexDir, err)
	case !st.IsDir():
		return Home{}, fmt.Errorf("%w %s %s: it is %s, not a directory", ErrIndexDir, indexDir, OptIndexDir, mapping.Kind(st.Mode()))
	}
	name, err := dirName(csvPath)
	if err != nil {
		return Home{}, err
	}
	return Home{csvPath: csvPath, stem: filepath.Join(indexDir, name)}, nil
}

// dirName returns the base name of the stem of the CSV at csvPath in an
// index directory: BASE.HASH, of its absolute, cleaned path; of a URL, of
// the URL as it is, BASE the last element of its path.
func dirName(csvPath string) (string, error) {
	if source.IsURL(csvPath) {
		base := "csv"
		if u, err := url.Parse(csvPath); err == nil && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
			base = path.Base(u.Path)
		}
		return fmt.Sprintf("%s.%016x", base, xxh3.Hash([]byte(csvPath))), nil
	}
	abs, err := filepath.Abs(csvPath) // cleaned
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s.%016x", filepath.Base(abs), xxh3.Hash([]byte(abs))), nil
}

// nextTo returns the home of the indexes of the CSV at csvPath next to it.
func nextTo(csvPath string) Home { return Home{csvPath: csvPath, stem: csvPath} }

// DefaultIndexPath returns the path of the CSV's first index, its default:
// STEM.csvidx.
func (h Home) DefaultIndexPath() string { return h.stem + indexSuffix }
