package remoteindex

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
