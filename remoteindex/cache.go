package remoteindex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// DefaultCacheDir returns where fetched index pieces are kept:
// $XDG_CACHE_HOME/csvidx, else the user's cache directory's csvidx (on
// Linux, ~/.cache/csvidx).
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "csvidx"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for remote indexes (%v): set XDG_CACHE_HOME, or give --no-cache", err)
	}
	return filepath.Join(d, "csvidx"), nil
}

// CacheEnv is the environment variable that caps the cache of remote
// indexes, in MiB: Options.CacheMax for the programs that read it (the
// CLI and the Python binding), DefaultCacheMax when it is unset.
const CacheEnv = "CSVIDX_CACHE_MIB"

// CacheMaxFromEnv returns the cap CacheEnv gives the cache, in bytes; 0
// (DefaultCacheMax) when it is unset.
func CacheMaxFromEnv() (int64, error) {
	v := os.Getenv(CacheEnv)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > 1<<40 {
		return 0, fmt.Errorf("%s=%q: give the most MiB the cache of remote indexes keeps, a whole number from 1 (default %d)", CacheEnv, v, DefaultCacheMax>>20)
	}
	return n << 20, nil
}

// entryDir returns the directory, under base, of the pieces of the index at
// url whose ETag is etag: a name made of both, never of the URL alone, so
// that another version of the index is another entry.
func entryDir(base, url, etag string) string {
	sum := sha256.Sum256([]byte(url + "\x00" + etag))
	return filepath.Join(base, hex.EncodeToString(sum[:16]))
}

// writeWhole writes data to path through a temporary file renamed into
// place, so that a reader never sees half of it.
func writeWhole(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// openSparse opens the file at path, which holds size bytes of an index,
// those not fetched yet zeros, for reading and writing: created (sparse)
// when it does not exist, and checked to be of that size when it does.
func openSparse(path string, size int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		if f, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err != nil || st.Size() != size {
			f.Close()
			if err == nil {
				err = fmt.Errorf("the cached %s holds %d bytes, not %d", path, st.Size(), size)
			}
			return nil, err
		}
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// state is what an opening of a remote index leaves in the cache for the
// next one: the versions it found of the index and the CSV, and where the
// CSV's last bytes it read start (csv.end; csv.head holds its first).
type state struct {
	IndexURL  string `json:"index_url"`
	IndexETag string `json:"index_etag"`
	IndexSize int64  `json:"index_size"`
	CSVURL    string `json:"csv_url"`
	CSVETag   string `json:"csv_etag"`
	CSVSize   int64  `json:"csv_size"`
	EndAt     int64  `json:"end_at"`
	// Compressed says the CSV is compressed: its index opens it through
	// the table of its frames.
	Compressed bool `json:"compressed,omitempty"`
}

// pointerPath returns the file under base that names the cache entry of
// the last opening of the index at idxURL for the CSV at csvURL.
func pointerPath(base, idxURL, csvURL string) string {
	sum := sha256.Sum256([]byte(idxURL + "\x00" + csvURL))
	return filepath.Join(base, hex.EncodeToString(sum[:16])+".last")
}

// save writes st into the entry dir and points the index's and CSV's URLs
// at it.
func (st state) save(base, dir string) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := writeWhole(filepath.Join(dir, "state.json"), b); err != nil {
		return err
	}
	return writeWhole(pointerPath(base, st.IndexURL, st.CSVURL), []byte(filepath.Base(dir)))
}

// loadState returns the state the last opening of the index at idxURL for
// the CSV at csvURL left under base, and its entry's directory.
func loadState(base, idxURL, csvURL string) (state, string, error) {
	name, err := os.ReadFile(pointerPath(base, idxURL, csvURL))
	if err != nil {
		return state{}, "", err
	}
	dir := filepath.Join(base, filepath.Base(string(name)))
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return state{}, "", err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return state{}, "", err
	}
	if st.IndexURL != idxURL || st.CSVURL != csvURL {
		return state{}, "", fmt.Errorf("the cache entry %s is of another index", dir)
	}
	return st, dir, nil
}
