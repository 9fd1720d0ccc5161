package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// TestAdvise: the CLI words the library's neutral fixes as the command to
// run, with the options the index was built with, quoted for the shell,
// also where the error is wrapped; other errors keep their message.
func TestAdvise(t *testing.T) {
	facts := func(sentinel error, what string) error {
		return fmt.Errorf("%s: %w: %s", "a.csv.csvidx", sentinel, what)
	}
	stale := &index.RebuildError{CSVPath: "a.csv", IndexPath: "a.csv.csvidx", Err: facts(index.ErrStale, "shrank"),
		Built: &index.Definition{KeyColumn: 1, KeyName: "user", Delimiter: ','}}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"Unknown", &index.RebuildError{CSVPath: "a.csv", IndexPath: "a.csv.csvidx", Err: fmt.Errorf("%w for a.csv", index.ErrNoIndex)},
			"no index for a.csv; run csvidx build a.csv --key COLUMN"},
		{"ByName", stale, "a.csv.csvidx: stale: shrank; run csvidx build a.csv --key user"},
		{"Quoted", &index.RebuildError{CSVPath: "my orders.csv", Err: facts(index.ErrCorrupt, "x"),
			Built: &index.Definition{KeyColumn: 0, KeyName: "it's", Delimiter: ','}},
			`a.csv.csvidx: corrupt: x; run csvidx build 'my orders.csv' --key 'it'\''s'`},
		{"NumberNoHeaderTab", &index.RebuildError{CSVPath: "a.txt", Err: facts(index.ErrCorrupt, "x"),
			Built: &index.Definition{KeyColumn: 3, NoHeader: true, Delimiter: '\t'}},
			`a.csv.csvidx: corrupt: x; run csvidx build a.txt --key 3 --no-header --delimiter '\t'`},
		{"TSVByTabs", &index.RebuildError{CSVPath: "a.TSV", Err: facts(index.ErrCorrupt, "x"),
			Built: &index.Definition{KeyColumn: 1, KeyName: "user", Delimiter: '\t'}},
			`a.csv.csvidx: corrupt: x; run csvidx build a.TSV --key user --delimiter '\t'`},
		{"TSVByCommas", &index.RebuildError{CSVPath: "a.tsv", Err: facts(index.ErrCorrupt, "x"),
			Built: &index.Definition{KeyColumn: 1, KeyName: "user", Delimiter: ','}},
			"a.csv.csvidx: corrupt: x; run csvidx build a.tsv --key user --delimiter ','"},
		{"Delimiter", fmt.Errorf("a.csv: %w", &index.DelimiterError{Err: fmt.Errorf("%w \"x\": the header has 1 column: \"a\\tx\"", index.ErrColumn), Guess: '\t'}),
			`a.csv: no such column "x": the header has 1 column: "a\tx"; that column holds "\t": give --delimiter '\t'`},
		{"ControlBytes", &index.RebuildError{CSVPath: "a\nb's.csv", Err: facts(index.ErrCorrupt, "x"),
			Built: &index.Definition{KeyColumn: 0, KeyName: "x\ty\\z\x1b", Delimiter: ','}},
			`a.csv.csvidx: corrupt: x; run csvidx build $'a\nb\'s.csv' --key $'x\ty\\z\x1b'`},
		{"NumberWithHeader", &index.RebuildError{CSVPath: "a.csv", Err: facts(index.ErrCorrupt, "x"),
			Built: &index.Definition{KeyColumn: 2, Delimiter: ';'}},
			"a.csv.csvidx: corrupt: x; run csvidx build a.csv --key 2 --delimiter ';'"},
		{"StaleTail", &index.RebuildError{CSVPath: "a.csv", Update: true, Err: facts(index.ErrStale, "x"),
			Built: &index.Definition{KeyColumn: 1, KeyName: "user", Delimiter: ','}},
			"a.csv.csvidx: stale: x; run csvidx build a.csv --key user (the tail indexes rows appended after the main index; csvidx update rescans them)"},
		{"Wrapped", fmt.Errorf("merge the tail into the main index: %w (and more)", stale),
			"merge the tail into the main index: a.csv.csvidx: stale: shrank; run csvidx build a.csv --key user (and more)"},
		{"Locked", fmt.Errorf("a.csv: %w", &index.LockedError{Lock: "a.csv.csvidx.lock"}),
			"a.csv: another csvidx is writing this index (a.csv.csvidx.lock is locked); try again when it is done, or leave out --no-wait to wait"},
		{"Other", errors.New("rebuild the index; try again when it is done"), "rebuild the index; try again when it is done"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := advise(c.err); got != c.want {
				t.Errorf("advise = %q\n want %q", got, c.want)
			}
		})
	}
}
