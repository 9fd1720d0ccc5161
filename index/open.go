package index

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/zeebo/xxh3"
)

// Options say where an index is. A nil *Options means the defaults.
type Options struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string

	hash func([]byte) uint64 // the key hash; xxh3 unless a test says otherwise
}

func (o *Options) indexPath(csvPath string) string {
	if o == nil || o.IndexPath == "" {
		return DefaultIndexPath(csvPath)
	}
	return o.IndexPath
}

func (o *Options) hashFunc() func([]byte) uint64 {
	if o == nil || o.hash == nil {
		return xxh3.Hash
	}
	return o.hash
}

// Index is an open index with its CSV. It is safe for concurrent use. It
// sees the files as they were when it was opened: rows appended later are
// not indexed (see [Index.BytesBehind]).
type Index struct {
	csvPath, idxPath string
	csv              *csvFile
	idxMap           *mapping.Map
	idx              []byte // the mapped index file
	h                *header
	hash             func([]byte) uint64
	checked          []atomic.Uint64 // a bit per record page whose CRC matched
}

// Open opens the index of the CSV at csvPath. It refuses a missing, broken
// or stale index with an error that says what to do.
func Open(csvPath string, opts *Options) (*Index, error) {
	idxPath := opts.indexPath(csvPath)
	m, h, err := openIndexFile(idxPath, csvPath)
	if err != nil {
		return nil, err
	}
	csv, err := openCSV(csvPath, mapping.Random)
	if err != nil {
		m.Close()
		return nil, err
	}
	if err := checkFresh(csv.f, int64(len(csv.data)), h, csvPath, idxPath); err != nil {
		m.Close()
		csv.close()
		return nil, err
	}
	return &Index{
		csvPath: csvPath, idxPath: idxPath,
		csv: csv, idxMap: m, idx: m.Bytes(), h: h,
		hash:    opts.hashFunc(),
		checked: make([]atomic.Uint64, (h.pages+63)/64),
	}, nil
}

// openIndexFile maps the index file at path and validates its header and
// size.
func openIndexFile(path, csvPath string) (*mapping.Map, *header, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w for %s: %s does not exist; %s", ErrNoIndex, csvPath, path, rebuildHint(csvPath, nil))
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close() // the mapping stays valid
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	m, err := mapping.File(f, st.Size(), mapping.Random)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	var h *header
	err = mapping.Guard(func() error {
		var err error
		h, err = decodeHeader(m.Bytes())
		return err
	}, m)
	if err == nil && h.flags&flagTail != 0 {
		err = fmt.Errorf("%w: a tail file where a main index belongs", ErrCorrupt)
	}
	if err == nil && uint64(st.Size()) != h.size() {
		err = fmt.Errorf("%w: the file is %d bytes, its header says %d", ErrCorrupt, st.Size(), h.size())
	}
	if err != nil {
		m.Close()
		if errors.Is(err, mapping.ErrFault) {
			err = fmt.Errorf("%w: %w", ErrChanged, err)
		}
		return nil, nil, fmt.Errorf("%s: %w; %s", path, err, rebuildHint(csvPath, h))
	}
	return m, h, nil
}

// checkFresh refuses an index whose CSV (f, now size bytes) shrank or
// changed at either end of the part the index covers.
func checkFresh(f *os.File, size int64, h *header, csvPath, idxPath string) error {
	scanned := int64(h.scanned)
	stale := func(format string, args ...any) error {
		return fmt.Errorf("%s is %w: %s; %s", idxPath, ErrStale, fmt.Sprintf(format, args...), rebuildHint(csvPath, h))
	}
	if size < scanned {
		return stale("%s shrank from %d to %d bytes", csvPath, scanned, size)
	}
	buf := make([]byte, min(scanned, fingerprintLen))
	head, tail := h.headChecksum, h.tailChecksum
	for _, part := range []struct {
		off  int64
		sum  uint64
		name string
	}{{0, head, "first"}, {scanned - int64(len(buf)), tail, "last"}} {
		if _, err := f.ReadAt(buf, part.off); err != nil && err != io.EOF {
			return err
		}
		if xxh3.Hash(buf) != part.sum {
			return stale("the %s %d bytes it indexed of %s changed", part.name, len(buf), csvPath)
		}
	}
	return nil
}

// rebuildHint is the advice given with errors about an index that must be
// rebuilt, with the options of the old index when its header is known.
func rebuildHint(csvPath string, h *header) string {
	cmd := "run csvidx build " + shellQuote(csvPath)
	if h == nil {
		return cmd + " --key COLUMN"
	}
	key := strconv.Itoa(int(h.keyCol))
	if h.flags&flagHeader != 0 && len(h.keyName) > 0 {
		key = string(h.keyName)
	}
	cmd += " --key " + shellQuote(key)
	if h.flags&flagHeader == 0 {
		cmd += " --no-header"
	}
	if h.delim != defaultDelim {
		cmd += " --delimiter " + shellQuote(string([]byte{h.delim}))
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell unless it needs no quotes.
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range []byte(s) {
		plain = plain && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:@%+=-", c) >= 0)
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Close releases the mappings and files. Rows passed to callbacks must not
// be used afterwards.
func (ix *Index) Close() error {
	err := ix.idxMap.Close()
	if cerr := ix.csv.close(); err == nil {
		err = cerr
	}
	return err
}

// BytesBehind returns how many bytes the CSV had grown by, when the index
// was opened, since it was built: rows there are not in the index.
func (ix *Index) BytesBehind() int64 { return int64(len(ix.csv.data)) - int64(ix.h.scanned) }

// Info describes the open index.
func (ix *Index) Info() *Info {
	return newInfo(ix.csvPath, ix.idxPath, ix.h, int64(len(ix.idx)), int64(len(ix.csv.data)))
}

// Check reports an error if the CSV shrank since the index was opened, which
// makes rows read since then unreliable.
func (ix *Index) Check() error {
	size, err := ix.csv.size()
	if err != nil {
		return err
	}
	if size < int64(len(ix.csv.data)) {
		return fmt.Errorf("%s: %w: it shrank from %d to %d bytes", ix.csvPath, ErrChanged, len(ix.csv.data), size)
	}
	return nil
}
