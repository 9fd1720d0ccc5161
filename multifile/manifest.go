package multifile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FormatName is the manifest's first field's value: what tells a manifest
// from any other JSON file (see IsManifest).
const FormatName = "csvidx-manifest"

// Version is the version of the manifest's format this package writes,
// and the only one it reads.
const Version = 1

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
	// Parts are the files, in order.
	Parts []Part `json:"parts"`
	// Partitions are the index files' names, in the manifest's
	// directory: a key's is the one its hash modulo their number picks.
	Partitions []string `json:"partitions"`
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

// ErrNotManifest means a file read as a manifest is not one.
var ErrNotManifest = errors.New("not a csvidx manifest")

// ReadManifest reads the manifest at path.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if !bytes.HasPrefix(b, []byte(manifestStart)) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotManifest)
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: a damaged csvidx manifest (%v): build it again", path, err)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("%s: a manifest of version %d, which this csvidx does not read (it reads version %d): build it again, or use the csvidx that wrote it", path, m.Version, Version)
	}
	if len(m.Parts) == 0 || len(m.Partitions) == 0 {
		return nil, fmt.Errorf("%s: %w: it lists %d files and %d index files", path, ErrNotManifest, len(m.Parts), len(m.Partitions))
	}
	return m, nil
}

// write puts m at path atomically: a reader finds the old manifest or
// this one, whole.
func (m *Manifest) write(path string) error { return writeJSON(path, m) }

// partPath returns the path part i is read from: its Path, made relative
// to the manifest's directory dir when it is a relative path.
func (m *Manifest) partPath(dir string, i int) string {
	p := m.Parts[i].Path
	if filepath.IsAbs(p) || isURL(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// PartPath returns the path part i of m, the manifest at path, is read
// from (see Part.Path).
func (m *Manifest) PartPath(path string, i int) string { return m.partPath(filepath.Dir(path), i) }
