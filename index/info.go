package index

import (
	"fmt"
	"os"
)

// Info describes an index file and how it relates to its CSV now.
type Info struct {
	CSVPath    string `json:"csv"`
	IndexPath  string `json:"index"`
	IndexBytes int64  `json:"index_bytes"`
	Version    int    `json:"format_version"`
	Generation string `json:"generation"`

	KeyColumn int    `json:"key_column"`           // 0-based
	KeyName   string `json:"key_name,omitempty"`   // the header field of the key column
	Header    bool   `json:"header"`               // the CSV's first record is a header
	Delimiter string `json:"delimiter"`            // one byte
	HeaderEnd int64  `json:"header_end,omitempty"` // where the data records start

	Rows       int64 `json:"rows"`        // data records read
	Records    int64 `json:"records"`     // index records: rows with a key
	ShortRows  int64 `json:"short_rows"`  // rows too short to have the key column
	BlankLines int64 `json:"blank_lines"` // blank lines, not records

	ScannedBytes int64  `json:"scanned_bytes"`   // CSV bytes read when the index was built
	ResumeOffset int64  `json:"resume_offset"`   // where the next scan of appended rows starts
	Unterminated bool   `json:"unterminated"`    // the last row read had no terminator
	CSVBytes     int64  `json:"csv_bytes"`       // the CSV's size now
	BytesBehind  int64  `json:"bytes_behind"`    // CSV bytes appended since, not indexed
	Stale        string `json:"stale,omitempty"` // why the index cannot be used, if it cannot

	Build *BuildStats `json:"build,omitempty"` // how the build went, from Build only
}

// BuildStats says how a build went. Nothing in it changes the index.
type BuildStats struct {
	Threads int `json:"threads"` // workers of the scan and the sort
	Chunks  int `json:"chunks"`  // pieces the CSV was scanned in
	Repairs int `json:"repairs"` // chunks whose guessed start was wrong and were scanned again
}

func newInfo(csvPath, idxPath string, h *header, idxSize, csvSize int64) *Info {
	return &Info{
		CSVPath:      csvPath,
		IndexPath:    idxPath,
		IndexBytes:   idxSize,
		Version:      version,
		Generation:   fmt.Sprintf("%016x", h.generation),
		KeyColumn:    int(h.keyCol),
		KeyName:      string(h.keyName),
		Header:       h.flags&flagHeader != 0,
		Delimiter:    string([]byte{h.delim}),
		HeaderEnd:    int64(h.headerEnd),
		Rows:         int64(h.rows),
		Records:      int64(h.records),
		ShortRows:    int64(h.shortRows),
		BlankLines:   int64(h.blanks),
		ScannedBytes: int64(h.scanned),
		ResumeOffset: int64(h.resume),
		Unterminated: h.resume < h.scanned,
		CSVBytes:     csvSize,
		BytesBehind:  max(0, csvSize-int64(h.scanned)),
	}
}

// ReadInfo describes the index of the CSV at csvPath without refusing a
// stale one: Info.Stale says why it could not be used. A broken or missing
// index file is an error.
func ReadInfo(csvPath string, opts *Options) (*Info, error) {
	idxPath := opts.indexPath(csvPath)
	m, h, err := openIndexFile(idxPath, csvPath)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	f, err := os.Open(csvPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	info := newInfo(csvPath, idxPath, h, int64(h.size()), st.Size())
	if err := checkFresh(f, st.Size(), h, csvPath, idxPath); err != nil {
		info.Stale = err.Error()
	}
	return info, nil
}
