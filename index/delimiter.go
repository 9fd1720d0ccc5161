package index

import (
	"path/filepath"
	"strings"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/keyspec"
)

// DefaultDelimiter returns the delimiter of the CSV at path when none is
// given: a tab for a .tsv or .tab file (in any case), as xsv and qsv read
// them, else a comma.
func DefaultDelimiter(path string) byte {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tsv", ".tab":
		return '\t'
	}
	return format.DefaultDelim
}

// DelimiterError is the error for a key that names no column of the CSV's
// header (ErrColumn) or that no row has (ErrNoKeys), when the header looks
// separated by another delimiter: see [keyspec.DelimiterError].
type DelimiterError = keyspec.DelimiterError
