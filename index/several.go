package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/keyspec"
)

// byPrefix and indexSuffix frame the name of an index of a CSV other than
// its first: CSV.by-1-4.csvidx.
const (
	byPrefix    = ".by-"
	indexSuffix = ".csvidx"
)

// byPath returns the by- path of the index of cols of h's CSV.
func (h Home) byPath(cols []int) string { return ByName(h.stem, cols) }

// ByName returns the name of an index by the columns cols (0-based) of
// the CSV named csv, other than its first (CSV.csvidx): CSV.by-1-4.csvidx.
// For a CSV at a URL, it is the URL of that index next to it.
func ByName(csv string, cols []int) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = strconv.Itoa(c)
	}
	return csv + byPrefix + strings.Join(s, "-") + indexSuffix
}

// IsNextTo reports whether idxPath is where csvidx names an index of the
// CSV at csvPath next to it: CSV.csvidx or a by- name. A build finds such
// an index without --index.
func IsNextTo(csvPath, idxPath string) bool {
	if filepath.Clean(idxPath) == filepath.Clean(DefaultIndexPath(csvPath)) {
		return true
	}
	if filepath.Dir(filepath.Clean(idxPath)) != filepath.Dir(filepath.Clean(csvPath)) {
		return false
	}
	_, ok := byColumns(filepath.Base(idxPath), filepath.Base(csvPath))
	return ok
}

// byColumns returns the columns of name, a file name, if it is a by- name
// for the CSV named base (base.by-N[-N...].csvidx), and false if not.
func byColumns(name, base string) ([]int, bool) {
	mid, ok := strings.CutPrefix(name, base+byPrefix)
	if !ok {
		return nil, false
	}
	if mid, ok = strings.CutSuffix(mid, indexSuffix); !ok || mid == "" {
		return nil, false
	}
	var cols []int
	for _, n := range strings.Split(mid, "-") {
		c, err := strconv.Atoi(n)
		if err != nil || c < 0 || strings.Trim(n, "0123456789") != "" {
			return nil, false
		}
		cols = append(cols, c)
	}
	return cols, true
}

// byStem returns STEM if name, a file name, is a by- name
// STEM.by-N[-N...].csvidx, and false if not.
func byStem(name string) (string, bool) {
	i := strings.LastIndex(name, byPrefix)
	if i <= 0 {
		return "", false
	}
	_, ok := byColumns(name, name[:i])
	return name[:i], ok
}

// Indexes returns the paths of the indexes of the CSV at csvPath: the files
// at CSV.csvidx and at the by- names (see the package documentation), the
// first one first and the others by their columns: by-1, by-1-2, by-2.
// CSV.csvidx is listed if a regular file is there, whether or not it is a
// sound index: it is where csvidx has always put one. A by- path is listed
// if a regular file there begins with an index's magic (or cannot be
// read), whether or not it is sound; a file of another program under such
// a name is not an index of the CSV, and is left alone. It lists none for
// a CSV without indexes.
func Indexes(csvPath string) ([]string, error) { return nextTo(csvPath).Indexes() }

// Indexes returns the paths of the indexes of h's CSV, as [Indexes] does
// of those next to a CSV.
func (h Home) Indexes() ([]string, error) {
	var out []string
	if st, err := os.Lstat(h.DefaultIndexPath()); err == nil && st.Mode().IsRegular() {
		out = append(out, h.DefaultIndexPath())
	}
	dir, base := filepath.Split(h.stem)
	entries, err := os.ReadDir(readableDir(dir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return out, nil
		}
		return nil, err
	}
	type byFile struct {
		path string
		cols []int
	}
	var by []byFile
	for _, e := range entries {
		if cols, ok := byColumns(e.Name(), base); ok && e.Type().IsRegular() && !lacksMagic(dir+e.Name(), mainRole) {
			by = append(by, byFile{dir + e.Name(), cols})
		}
	}
	slices.SortFunc(by, func(a, b byFile) int {
		return cmp.Or(slices.Compare(a.cols, b.cols), strings.Compare(a.path, b.path))
	})
	for _, b := range by {
		out = append(out, b.path)
	}
	return out, nil
}

// readableDir returns dir, a directory as filepath.Split leaves it, as a path to
// read: "." for "".
func readableDir(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// An IndexKey is one index of a CSV and the key it is by, as its header
// says.
type IndexKey struct {
	Path    string // the index file
	Columns []int  // the key's columns, 0-based, in its order; nil if the header cannot be read
	Name    string // the key's name: its header fields as one CSV record, or its columns'
	Err     error  // why the header cannot be read, if it cannot

	h *format.Header // the header, when it can be read
}

// ReadIndexKeys returns each index of the CSV at csvPath (see [Indexes])
// with its key.
func ReadIndexKeys(csvPath string) ([]IndexKey, error) { return nextTo(csvPath).readIndexKeys() }

// readIndexKeys returns each index of h's CSV with its key.
func (h Home) readIndexKeys() ([]IndexKey, error) {
	paths, err := h.Indexes()
	if err != nil {
		return nil, err
	}
	out := make([]IndexKey, len(paths))
	for i, p := range paths {
		out[i] = IndexKey{Path: p}
		h, err := readHeaderOf(p)
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].h, out[i].Columns = h, h.KeyColumns()
		out[i].Name = string(h.KeyName)
		if out[i].Name == "" {
			out[i].Name = keyspec.Spec(out[i].Columns)
		}
	}
	return out, nil
}

// readHeaderOf reads and checks the header page of the index file at path.
func readHeaderOf(path string) (*format.Header, error) {
	page, err := readStart(path, format.PageSize)
	if err != nil {
		return nil, err
	}
	return format.DecodeHeader(page)
}

// ErrSeveral means a CSV has several indexes, none of them its default
// (CSV.csvidx), and the call did not say which one it is about (--by).
var ErrSeveral = errors.New("several indexes")

// Locate returns the path of the index of the CSV at csvPath whose key is
// by, a key spec (see keyspec.go) resolved as a build resolves it, against
// the CSV's header in each index's dialect. An empty by means the file's
// default index: CSV.csvidx when it is there, so that adding an index
// never changes what a call without by finds; else the file's only index.
// A file of several indexes, all at by- names, is ErrSeveral, in an error
// that lists them. A file with no index gives CSV.csvidx, where a reader
// then finds none.
func Locate(csvPath, by string) (string, error) { return nextTo(csvPath).Locate(by) }

// Locate returns the path of the index of h's CSV by, as [Locate] does of
// the indexes next to a CSV.
func (h Home) Locate(by string) (_ string, err error) {
	csvPath := h.csvPath
	defer namePath(&err, csvPath, h.DefaultIndexPath())
	if by == "" {
		// A lookup's path: the file names, without reading a header, unless
		// the message needs them.
		paths, err := h.Indexes()
		switch {
		case err != nil:
			return "", err
		case len(paths) == 0:
			return h.DefaultIndexPath(), nil
		case len(paths) == 1 || paths[0] == h.DefaultIndexPath(): // Indexes lists it first
			return paths[0], nil
		}
		keys, err := h.readIndexKeys()
		if err != nil {
			return "", err
		}
		return "", fmt.Errorf("%w: %s has %d indexes (%s) and none at %s, the default; pick one by its key", ErrSeveral, csvPath, len(keys), listKeys(keys), h.DefaultIndexPath())
	}
	keys, err := h.readIndexKeys()
	if err != nil {
		return "", err
	}
	var csv *csvFile   // opened for the first index whose key is readable
	var firstErr error // why by names no column in an index's dialect
	resolved := false  // by names columns in some index's dialect
	defer func() {
		if csv != nil {
			csv.close()
		}
	}()
	for _, k := range keys {
		if k.h == nil {
			continue
		}
		if csv == nil {
			if csv, err = openSource(csvPath, mapping.Random, k.h.Delim); err != nil { // its head holds the header record
				return "", err
			}
		}
		sp := specOf(k.h)
		sp.key, sp.keyCols = by, nil
		if err := csv.guard(func() error { _, _, err := mainHeader(csv, &sp); return err }); err != nil {
			if errors.Is(err, ErrChanged) {
				return "", err
			}
			if serr := checkFresh(csv.at(context.Background()), int64(csv.size), k.h, csvPath, k.Path); serr != nil {
				return "", serr // the header by was resolved against is not the one indexed
			}
			// by names no column in this index's dialect: perhaps in another's.
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		if slices.Equal(sp.keyCols, k.Columns) {
			return k.Path, nil
		}
		resolved = true
	}
	if firstErr != nil && !resolved { // by names no column in any dialect
		return "", firstErr
	}
	if len(keys) == 0 {
		return "", &RebuildError{CSVPath: csvPath, IndexPath: h.DefaultIndexPath(), Err: fmt.Errorf("%w by %q", ErrNoIndex, by)}
	}
	return "", fmt.Errorf("%w by %q: %s has %s; build it", ErrNoIndex, by, csvPath, listKeys(keys))
}

// isDefault reports whether the index at idxPath is the default index of
// h's CSV, the one Locate finds without a key to pick it by.
func (h Home) isDefault(idxPath string) bool {
	p, err := h.Locate("")
	if err != nil {
		return false
	}
	a, err := os.Stat(p)
	if err != nil {
		return false
	}
	b, err := os.Stat(idxPath)
	return err == nil && os.SameFile(a, b)
}

// listKeys describes indexes for a message: "by user_id (orders.csv.csvidx),
// by user_id,status (orders.csv.by-1-4.csvidx)".
func listKeys(keys []IndexKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		if k.Columns == nil {
			s[i] = fmt.Sprintf("an unreadable one (%s)", k.Path)
			continue
		}
		s[i] = fmt.Sprintf("by %s (%s)", k.Name, k.Path)
	}
	return strings.Join(s, ", ")
}

// placeIndex returns where a build puts the index of cols of h's CSV (see
// the package documentation), given the file's indexes and the paths
// already taken by other indexes of the same build.
func (h Home) placeIndex(cols []int, keys []IndexKey, taken []string) string {
	for _, k := range keys {
		if slices.Equal(k.Columns, cols) && !slices.Contains(taken, k.Path) {
			return k.Path
		}
	}
	first := h.DefaultIndexPath()
	// CSV.csvidx is free while the file has no index to be its default: a
	// new key put there would change what a call without --by finds. A
	// default path holding no readable index is the build's to replace,
	// as it always was.
	free := !slices.Contains(taken, first) && !slices.ContainsFunc(keys, func(k IndexKey) bool { return k.Columns != nil })
	if free {
		return first
	}
	return h.byPath(cols)
}
