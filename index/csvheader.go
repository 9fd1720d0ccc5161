package index

import (
	"bytes"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan"
)

// A CSVHeader is a CSV's header record, as csvidx reads it.
type CSVHeader struct {
	Fields [][]byte // its fields, decoded; nil when there is none
	Found  bool     // the CSV has a header record
	Delim  byte     // the delimiter it was read with
}

// ReadCSVHeader reads the header of the CSV at csvPath in the dialect of
// the file's first readable index, else as a build reads it by default:
// with a header, and the delimiter its name implies (see
// [DefaultDelimiter]).
func ReadCSVHeader(csvPath string) (*CSVHeader, error) {
	sp := spec{delim: DefaultDelimiter(csvPath), header: true}
	if keys, err := ReadIndexKeys(csvPath); err == nil {
		for _, k := range keys {
			if k.h != nil {
				sp = specOf(k.h)
				break
			}
		}
	}
	csv, err := openSource(csvPath, mapping.Random, sp.delim) // its head holds the header record
	if err != nil {
		return nil, err
	}
	defer csv.close()
	hd := &CSVHeader{Delim: sp.delim}
	if !sp.header {
		return hd, nil
	}
	err = csv.guard(func() error { // a CSV cut short meanwhile is an error
		hs, err := scan.New(csv.head, sp.delim, 0)
		if err != nil {
			return err
		}
		hs.LimitOne()
		if hd.Found = hs.Next(); hd.Found {
			fields, _, _ := scan.Fields(csv.head, hs.Start(), sp.delim)
			for _, f := range fields {
				hd.Fields = append(hd.Fields, bytes.Clone(f))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hd, nil
}
