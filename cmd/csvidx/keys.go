package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/csvidx/csvidx/scan"
)

// keyInput is the keys get was given, as given: arguments, and the
// contents of a keys file.
type keyInput struct {
	args [][]byte
	file []byte // nil without --keys-file
	// stdin reads the keys file from standard input (--keys-file -), which
	// keys does once the index is open: a file the default build does not
	// read then stops get before standard input is read, so that the
	// codecs build, run in its place, reads it whole (see runHelper).
	stdin func() ([]byte, error)
}

// keyed is what reading keys asks of an index: its key's columns and
// dialect, and the key of a value (index.Index, multifile.Index).
type keyed interface {
	KeyColumns() []int
	Delimiter() byte
	Key(value []byte) ([]byte, error)
}

// keys returns the keys of in for ix, and each as it was given. For a key
// of one column, an argument is a key, whole, and so is each line of the
// keys file. For a composite key, each argument and each record of the
// keys file (in the CSV's dialect: a quoted newline stays in its value,
// blank lines are skipped) is a value with a field per column.
func (in *keyInput) keys(ix keyed) (values, keys [][]byte, err error) {
	if in.stdin != nil {
		if in.file, err = in.stdin(); err != nil {
			return nil, nil, err
		}
		in.stdin = nil
	}
	values = append(values, in.args...)
	if in.file != nil {
		if len(ix.KeyColumns()) == 1 {
			values = append(values, keyLines(in.file)...)
		} else {
			values = append(values, keyRecords(in.file, ix.Delimiter())...)
		}
	}
	keys = make([][]byte, len(values))
	for i, v := range values {
		if keys[i], err = ix.Key(v); err != nil {
			if i >= len(in.args) {
				return nil, nil, fmt.Errorf("--keys-file: %w", err)
			}
			return nil, nil, err
		}
	}
	return values, keys, nil
}

// readKeysFile reads the keys file at path, or stdin when path is "-",
// less a UTF-8 byte order mark at its start (as Notepad and Excel write).
// what names the file in errors.
func readKeysFile(path, what string, s streams) ([]byte, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(s.stdin())
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if data == nil {
		data = []byte{}
	}
	return bytes.TrimPrefix(data, scan.BOM), nil
}

// keyLines splits data into lines, each a key. Lines end with \n or \r\n;
// an empty line is the empty key; a last line without a newline is a key
// too.
func keyLines(data []byte) [][]byte {
	var keys [][]byte
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		if found {
			line = bytes.TrimSuffix(line, []byte{'\r'})
		}
		keys = append(keys, line)
		data = rest
	}
	return keys
}

// keyRecords splits data into CSV records separated by delim, skipping
// blank lines, and returns each record's bytes without its terminator.
func keyRecords(data []byte, delim byte) [][]byte {
	var recs [][]byte
	for i := 0; i < len(data); {
		if data[i] == '\n' {
			i++
			continue
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i += 2
			continue
		}
		_, end, terminated := scan.Fields(data, i, delim)
		rec := data[i:end]
		if terminated {
			rec = bytes.TrimSuffix(bytes.TrimSuffix(rec, []byte{'\n'}), []byte{'\r'})
		}
		recs = append(recs, rec)
		i = end
	}
	return recs
}
