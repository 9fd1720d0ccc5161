package compressed

import "github.com/csvidx/csvidx/source"

// The backends of the formats this package reads, registered with package
// source when a program imports this one: source.Open then reads BGZF and
// zstd files, told by their first bytes whatever their names. Plain gzip
// (not BGZF) is not read yet: source.Open still refuses it with a
// *source.CompressedError, as it refuses xz, bzip2 and zip.
func init() {
	source.Register(source.Backend{Name: "bgzf", Match: IsBGZF, Open: openBGZF, OpenTable: tabled(OpenBGZF), Extend: tabled(ExtendBGZF)})
	source.Register(source.Backend{Name: "zstd", Match: isZstd, Open: openZstd, OpenTable: tabled(OpenZstd), Extend: tabled(ExtendZstd)})
}

// isZstd reports whether head, a file's first bytes, is zstd data: a
// frame's magic, or a skippable frame's, which pzstd writes first.
func isZstd(head []byte) bool { return source.Compression(head) == "zstd" }

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
