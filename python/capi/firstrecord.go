//go:build cgo

package main

import (
	"bytes"
	"errors"
	"io"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/scan"
)

const firstRecordRead = 64 << 10 // bytes read first to find the first record; doubled until it ends

// firstRecord returns the first record of ix's CSV verbatim: the header of
// a CSV that has one, the first data row of one that has not. Python parses
// it to learn the columns of an empty result of a CSV without a header, as
// pandas.read_csv(header=None) learns them from the first line. A BOM and
// blank lines before it are skipped; an empty CSV has no first record (nil).
func firstRecord(ix opened) ([]byte, error) {
	info := ix.Info()
	path := info.CSVPath
	if x, ok := ix.(*multifile.Index); ok { // the first record of the first file that has bytes
		parts, err := x.Manifest().AllParts(x.Path())
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			if path = p.Path; p.Size > 0 {
				break
			}
		}
	}
	f, _, err := mapping.Open(path) // a regular file, never a wait on a FIFO
	if err != nil {
		return nil, err
	}
	defer f.Close()
	delim := info.Delimiter[0]
	for size := firstRecordRead; ; size *= 2 {
		data := make([]byte, size)
		n, err := f.ReadAt(data, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		data = data[:n]
		whole := n < size
		start := 0
		if bytes.HasPrefix(data, scan.BOM) {
			start = len(scan.BOM)
		}
		for {
			switch {
			case bytes.HasPrefix(data[start:], []byte("\n")):
				start++
				continue
			case bytes.HasPrefix(data[start:], []byte("\r\n")):
				start += 2
				continue
			}
			break
		}
		if start == len(data) {
			if whole {
				return nil, nil
			}
			continue
		}
		_, end, terminated := scan.Fields(data, start, delim)
		if terminated || whole {
			return data[start:end], nil
		}
	}
}
