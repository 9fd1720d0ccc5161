package join

import (
	"errors"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/keyspec"
)

// When RIGHT has no index by the join's key, the fix depends on RIGHT's
// header: build the index, which needs the key's columns there (and the
// file's delimiter), or name RIGHT's own key columns (RightKey), when the
// key came from LEFT's names and RIGHT calls them otherwise. explain reads
// the header to tell which, on that error's path only.

// explain sets e's NoColumn, Header and Delimiter from RIGHT's header, read
// in the dialect of RIGHT's first readable index, else as a build of it
// reads it by default (see ReadCSVHeader). It leaves them unset when RIGHT
// cannot be read.
func (e *NoIndexError) explain() {
	hd, err := index.ReadCSVHeader(e.Right)
	if err != nil {
		return
	}
	if hd.Found {
		e.Header = keyspec.Describe(hd.Fields)
	}
	_, err = keyspec.Resolve(e.Key, hd.Fields, hd.Found, hd.Delim)
	var de *index.DelimiterError
	switch {
	case errors.As(err, &de):
		e.Delimiter = de.Guess
	case errors.Is(err, index.ErrColumn):
		e.NoColumn = true
		names, _ := keyspec.Fields(e.Key)
		for _, name := range names {
			if _, err := keyspec.Column(name, hd.Fields, hd.Found, hd.Delim); err != nil {
				e.Column = name
				break
			}
		}
	}
}
