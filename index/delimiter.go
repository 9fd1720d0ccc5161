package index

import (
	"path/filepath"
	"strings"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/keyspec"
)

// DefaultDelimiter returns the delimiter of the CSV at path when none is
// given: a tab for a .tsv or .tab file (in any case), as xsv and qsv read
// them, compressed too (a.tsv.gz, a.tsv.zst), else a comma.
func DefaultDelimiter(path string) byte {
	name := strings.ToLower(filepath.Base(path))
	for _, suffix := range compressedSuffixes {
		if trimmed, ok := strings.CutSuffix(name, suffix); ok {
			name = trimmed
			break
		}
	}
	switch filepath.Ext(name) {
	case ".tsv", ".tab":
		return '\t'
	}
	return format.DefaultDelim
}

// compressedSuffixes are the name suffixes of the compressed files csvidx
// reads, which DefaultDelimiter looks past.
var compressedSuffixes = []string{".gz", ".bgz", ".zst", ".zstd"}

// DelimiterError is the error for a key that names no column of the CSV's
// header (ErrColumn) or that no row has (ErrNoKeys), when the header looks
// separated by another delimiter: see [keyspec.DelimiterError].
type DelimiterError = keyspec.DelimiterError
