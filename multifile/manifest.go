package multifile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// FormatName is the manifest's first field's value: what tells a manifest
// from any other JSON file (see IsManifest).
const FormatName = "csvidx-manifest"

// Version is the version of a manifest without layers, which every
// csvidx that reads manifests reads; LayeredVersion is that of a manifest
// with layers (see Manifest.Layers), which a csvidx that knew no layers
// would answer from without them, and so refuses. This package reads both.
const (
	Version        = 1
	LayeredVersion = 2
)

// A Manifest is what an index over several files is: its parts, in the
// order they are concatenated, and its partitions, the index files.
type Manifest struct {
	Format  string `json:"format"` // FormatName: first, for IsManifest
	Version int    `json:"version"`
	// Run names the build that wrote the manifest and its index files.
	Run string `json:"run"`
	// Key is the key spec the index is by, as given to the build.
	Key string `json:"key"`
	// Delimiter and NoHeader are the parts' dialect.
	Delimiter string `json:"delimiter"`
	NoHeader  bool   `json:"no_header,omitempty"`
	// Header is the first part's header record, byte for byte, which
	// every other part starts with and is not read for.
	Header []byte `json:"header,omitempty"`
	// Size is the concatenation's size in bytes.
	Size int64 `json:"size"`
	// Parts are the files, in order, in memory: a build's, which write
	// puts in the parts table. ReadManifest leaves them nil: the table
	// is read a part at a time (see list), or whole (AllParts).
	Parts []Part `json:"-"`
	// PartCount is the number of files; PartsFile names their table,
	// beside the manifest (see table.go).
	PartCount int    `json:"part_count"`
	PartsFile string `json:"parts_file"`
	// Partitions are the index files' names, in the manifest's
	// directory: a key's is the one its hash modulo their number picks.
	Partitions []string `json:"partitions"`
	// Layers are the index files of the files that updates added, in
	// order, each over the range of the concatenation after the one
	// before (the first after Partitions'); see Update. A key's rows are
	// in its partition of each.
	Layers []Layer `json:"layers,omitempty"`
	// Sources say how the build named its files, for an update to look
	// for new ones there; nil when it named each file.
	Sources *Sources `json:"sources,omitempty"`
}

// A Layer is the index files of a range of the concatenation that an
// update added: they index the records from Start up to the next layer's
// Start (the concatenation's end for the last), of the parts from
// FirstPart on.
type Layer struct {
	Run        string   `json:"run"`
	Start      int64    `json:"start"`
	FirstPart  int      `json:"first_part"`
	Partitions []string `json:"partitions"`
}

// Sources say how a build named its files: glob patterns, and a file
// that lists files (--files-from), each read, as the build read them,
// in Dir, the directory the build ran in (relative to the manifest's
// directory in a manifest).
type Sources struct {
	Patterns  []string `json:"patterns,omitempty"`
	FilesFrom string   `json:"files_from,omitempty"`
	Dir       string   `json:"dir"`
}

// A Part is one file of the concatenation, as the build found it.
type Part struct {
	// Path is the file's path: relative to the manifest's directory when
	// it is relative (see Manifest.partPath), else as given; or a URL.
	Path string `json:"path"`
	// Size is how many bytes the file held.
	Size int64 `json:"size"`
	// Skip is how many of its first bytes, its header, the concatenation
	// leaves out (0 for the first part).
	Skip int64 `json:"skip"`
	// Newline says the concatenation adds a newline after the file's
	// bytes: its last record has none.
	Newline bool `json:"newline,omitempty"`
	// Head and Tail are the XXH3-64 hashes of the file's first and last
	// format.EndHashLen bytes (all of them when it is shorter), in 16 hex
	// digits (a JSON number would lose bits in many readers).
	Head string `json:"head,omitempty"`
	Tail string `json:"tail,omitempty"`
}

// manifestStart is how every manifest starts.
const manifestStart = `{"format":"` + FormatName + `"`

// IsManifest reports whether the file at path is a regular file that
// starts as a manifest does. It reads its first bytes only.
func IsManifest(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false // a FIFO or a device is no manifest, and opening it may block
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	want := []byte(manifestStart)
	got := make([]byte, len(want))
	_, err = io.ReadFull(f, got)
	return err == nil && bytes.Equal(got, want)
}

// IsManifestBytes reports whether b, a file's first bytes, start as a
// manifest does.
func IsManifestBytes(b []byte) bool { return bytes.HasPrefix(b, []byte(manifestStart)) }

// ErrNotManifest means a file read as a manifest is not one.
var ErrNotManifest = errors.New("not a csvidx manifest")

// ReadManifest reads the manifest at path.
func ReadManifest(path string) (*Manifest, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return parseManifest(path, b)
}

// parseManifest reads b, the bytes of the manifest at path.
func parseManifest(path string, b []byte) (*Manifest, error) {
	m := &Manifest{}
	if !bytes.HasPrefix(b, []byte(manifestStart)) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotManifest)
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: a damaged csvidx manifest (%v): build it again", path, err)
	}
	if m.Version != Version && m.Version != LayeredVersion {
		return nil, fmt.Errorf("%s: a manifest of version %d, which this csvidx does not read (it reads versions %d and %d): build it again, or use the csvidx that wrote it", path, m.Version, Version, LayeredVersion)
	}
	if m.PartCount <= 0 || m.PartsFile == "" || filepath.Base(m.PartsFile) != m.PartsFile || len(m.Partitions) == 0 || len(m.Delimiter) != 1 ||
		!m.layersValid() || (len(m.Layers) > 0) != (m.Version == LayeredVersion) {
		return nil, fmt.Errorf("%s: a damaged csvidx manifest (%d files, %d index files, %d layers): build it again", path, m.PartCount, len(m.Partitions), len(m.Layers))
	}
	return m, nil
}

// layersValid reports whether m's layers are each after the one before,
// within the concatenation, with as many index files as m.Partitions,
// each a name beside the manifest.
func (m *Manifest) layersValid() bool {
	start, first := int64(0), 0
	for _, l := range m.Layers {
		if l.Start <= start || l.Start > m.Size || l.FirstPart <= first || l.FirstPart >= m.PartCount || len(l.Partitions) != len(m.Partitions) {
			return false
		}
		for _, p := range l.Partitions {
			if filepath.Base(p) != p {
				return false
			}
		}
		start, first = l.Start, l.FirstPart
	}
	for _, p := range m.Partitions {
		if filepath.Base(p) != p {
			return false
		}
	}
	return true
}

// write puts m's parts table (from m.Parts) and then m at path, each
// atomically: a reader finds the old manifest or this one, whole, with its
// table.
func (m *Manifest) write(path string) error {
	m.PartCount, m.PartsFile = len(m.Parts), partsName(path, m.Run)
	m.Version = Version
	if len(m.Layers) > 0 {
		m.Version = LayeredVersion
	}
	table := filepath.Join(filepath.Dir(path), m.PartsFile)
	if err := writeTable(table, m.Parts); err != nil {
		return err
	}
	if err := writeJSON(path, m); err != nil {
		removeFile(table) // no manifest names it
		return err
	}
	return nil
}

// resolve returns the path a part's Path p is read from, for the
// manifest in directory dir (see dirOf): relative to dir when it is a
// relative path, joined to it as text when dir is a URL's, so that an
// s3:// key, which is taken as it is written, and an http one, written
// escaped, both come back as they were published (a p that climbs above
// the URL's root is left as it is, for its read to fail and say so).
func resolve(dir, p string) string {
	switch {
	case filepath.IsAbs(p) || isURL(p):
		return p
	case isURL(dir):
		slashed := filepath.ToSlash(p)
		scheme, rest, _ := strings.Cut(dir, "://")
		host, dirPath, _ := strings.Cut(rest, "/")
		depth := 0 // the directories below the root that ../ may climb
		if d := strings.Trim(dirPath, "/"); d != "" {
			depth = strings.Count(d, "/") + 1
		}
		if clean := path.Clean(slashed); strings.Count(clean+"/", "../") > depth {
			return dir + "/" + slashed
		}
		return scheme + "://" + host + path.Join("/"+dirPath, slashed)
	}
	return filepath.Join(dir, p)
}

// dirOf returns the directory of the manifest at path, its files' home: a
// local one, or for a URL, the URL up to its last slash (filepath.Dir
// would fold its "//").
func dirOf(p string) string {
	if isURL(p) {
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i] // a query's slashes are no directory's
		}
		return p[:strings.LastIndex(p, "/")]
	}
	return filepath.Dir(p)
}

// AllParts returns the parts of m, the manifest at path, with their paths
// as they are read (see Part.Path): m.Parts, or its table's, read whole.
func (m *Manifest) AllParts(path string) ([]Part, error) {
	parts, err := m.storedParts(path)
	if err != nil {
		return nil, err
	}
	out := make([]Part, len(parts))
	for i, p := range parts {
		p.Path = resolve(dirOf(path), p.Path)
		out[i] = p
	}
	return out, nil
}

// storedParts returns the parts of m, the manifest at path, with their
// paths as m stores them: m.Parts, or its table's, read whole.
func (m *Manifest) storedParts(path string) ([]Part, error) {
	if m.Parts != nil {
		return m.Parts, nil
	}
	t, err := openTable(resolve(dirOf(path), m.PartsFile), m.PartCount, m.Size)
	if err != nil {
		return nil, err
	}
	defer t.close()
	return t.all()
}
