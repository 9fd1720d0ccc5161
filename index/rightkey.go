package index

import (
	"errors"

	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/keyspec"
	"github.com/csvidx/csvidx/scan"
)

// When RIGHT has no index by the join's key, the fix depends on RIGHT's
// header: build the index, which needs the key's columns there (and the
// file's delimiter), or name RIGHT's own key columns (RightKey), when the
// key came from LEFT's names and RIGHT calls them otherwise. explain reads
// the header to tell which, on that error's path only.

// explain sets e's NoColumn, Header and Delimiter from RIGHT's header, read
// in the dialect of RIGHT's first readable index, else as a build of it
// reads it by default. It leaves them unset when RIGHT cannot be read.
func (e *NoJoinIndexError) explain() {
	csv, err := openCSV(e.Right, mapping.Random)
	if err != nil {
		return
	}
	defer csv.close()
	csv.guard(func() error { e.explainBy(csv); return nil }) // a CSV cut short meanwhile leaves e as it is
}

// explainBy is explain, reading RIGHT's header from csv.
func (e *NoJoinIndexError) explainBy(csv *csvFile) {
	sp := spec{delim: DefaultDelimiter(e.Right), header: true}
	if keys, err := ReadIndexKeys(e.Right); err == nil {
		for _, k := range keys {
			if k.h != nil {
				sp = specOf(k.h)
				break
			}
		}
	}
	var fields [][]byte
	found := false
	if sp.header {
		hs, err := scan.New(csv.data, sp.delim, 0)
		if err != nil {
			return
		}
		hs.LimitOne()
		if found = hs.Next(); found {
			fields, _, _ = scan.Fields(csv.data, hs.Start(), sp.delim)
			e.Header = keyspec.Describe(fields)
		}
	}
	_, err := keyspec.Resolve(e.Key, fields, found, sp.delim)
	var de *DelimiterError
	switch {
	case errors.As(err, &de):
		e.Delimiter = de.Guess
	case errors.Is(err, ErrColumn):
		e.NoColumn = true
		names, _ := keyspec.Fields(e.Key)
		for _, name := range names {
			if _, err := keyspec.Column(name, fields, found, sp.delim); err != nil {
				e.Column = name
				break
			}
		}
	}
}
