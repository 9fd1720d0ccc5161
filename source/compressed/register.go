package compressed

import "github.com/csvidx/csvidx/source"

// The backends of the formats this package reads, registered with package
// source when a program imports this one: source.Open then reads BGZF,
// zstd and plain gzip files, told by their first bytes whatever their
// names. BGZF is gzip too: its backend comes first, so that a file whose
// first member says it is BGZF is read by its members, and the gzip
// backend reads the rest.
func init() {
	source.Register(source.Backend{Name: "bgzf", Match: IsBGZF, Open: openBGZF, OpenTable: tabled(OpenBGZF), Extend: tabled(ExtendBGZF)})
	source.Register(source.Backend{Name: "zstd", Match: isZstd, Open: openZstd, OpenTable: zstdTabled, Extend: tabled(ExtendZstd),
		Walk: walkZstd, OpenLike: likeZstd})
	source.Register(source.Backend{Name: "gzip", Match: isGzip, Open: openGzipFile, OpenTable: gzipTabled(func(path string, table []byte) (*Gzip, error) { return OpenGzip(path, table, 0) }),
		Extend: gzipTabled(ExtendGzip), Walk: streamGzip, OpenLike: gzipLike})
}

// gzipLike opens the plain gzip file at path walking it with the span of
// table's walk (see source.OpenLike); a table that does not decode is its
// error.
func gzipLike(path string, table []byte) (source.Source, error) {
	_, span, err := DecodeGzipTable(table)
	if err != nil {
		return nil, err
	}
	s, err := OpenGzip(path, nil, span)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// streamGzip opens the plain gzip file at path as a GzipStream, whose walk
// runs as it is read, with checkpoints o.Span apart (see
// source.OpenWalking).
func streamGzip(path string, o source.WalkOptions) (source.Source, error) {
	s, err := StreamGzip(path, o.Span)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// isZstd reports whether head, a file's first bytes, is zstd data: a
// frame's magic, or a skippable frame's, which pzstd writes first.
func isZstd(head []byte) bool { return source.Compression(head) == "zstd" }

// isGzip reports whether head, a file's first bytes, is gzip data that is
// not BGZF (see IsBGZF): one member or several, as gzip and pigz write.
func isGzip(head []byte) bool { return source.Compression(head) == "gzip" && !IsBGZF(head) }

// openBGZF opens the BGZF file at path, walking its members' headers.
func openBGZF(path string) (source.Source, error) {
	s, err := OpenBGZF(path, nil)
	if err != nil {
		return nil, err // not a nil *Framed in a non-nil Source
	}
	return s, nil
}

// openZstd opens the zstd file at path, walking its frames.
func openZstd(path string) (source.Source, error) {
	s, err := OpenZstd(path, nil)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// tabled returns a backend's OpenTable or Extend over open, which opens a
// file through a table of its frames (OpenBGZF), or of a prefix of it
// (ExtendBGZF).
func tabled(open func(string, []Block) (*Framed, error)) func(string, []byte) (source.Source, error) {
	return func(path string, table []byte) (source.Source, error) {
		blocks, err := DecodeTable(table)
		if err != nil {
			return nil, err
		}
		s, err := open(path, blocks)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// openGzipFile opens the gzip file at path, walking it with checkpoints
// DefaultSpan apart.
func openGzipFile(path string) (source.Source, error) {
	s, err := OpenGzip(path, nil, DefaultSpan)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// gzipTabled returns the gzip backend's OpenTable or Extend over open,
// which opens a file through its checkpoints' table (OpenGzip), or a
// prefix's (ExtendGzip), walking what it walks with the span the table
// records.
func gzipTabled(open func(string, []byte) (*Gzip, error)) func(string, []byte) (source.Source, error) {
	return func(path string, table []byte) (source.Source, error) {
		s, err := open(path, table)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// zstdTabled opens the zstd file at path through table, its frames' table
// (see OpenZstdTable).
func zstdTabled(path string, table []byte) (source.Source, error) {
	blocks, err := DecodeTable(table)
	if err != nil {
		return nil, err
	}
	return OpenZstdTable(path, blocks)
}

// walkZstd opens the zstd file at path for a build: as a Framed, or as a
// ZstdStream when a frame is too large to decode whole (see
// openZstdStreamed).
func walkZstd(path string, _ source.WalkOptions) (source.Source, error) {
	return openZstdStreamed(path)
}

// likeZstd opens the zstd file at path for a verify, as walkZstd does.
func likeZstd(path string, _ []byte) (source.Source, error) { return openZstdStreamed(path) }
