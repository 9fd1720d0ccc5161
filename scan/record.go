package scan

import "bytes"

// AppendRecord appends fields to dst as one CSV record separated by delim,
// without a terminator, quoting the fields that need it, and a record of
// one empty field, which would be a blank line.
func AppendRecord(dst []byte, fields [][]byte, delim byte) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, delim)
		}
		lone := len(fields) == 1 && len(f) == 0 // unquoted, a blank line: no record
		if !lone && bytes.IndexByte(f, delim) < 0 && bytes.IndexByte(f, '"') < 0 && bytes.IndexByte(f, '\n') < 0 && bytes.IndexByte(f, '\r') < 0 {
			dst = append(dst, f...)
			continue
		}
		dst = append(dst, '"')
		dst = append(dst, bytes.ReplaceAll(f, []byte(`"`), []byte(`""`))...)
		dst = append(dst, '"')
	}
	return dst
}
