package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/spf13/cobra"
)

type getOptions struct {
	keysFile string
	count    bool
	header   bool
	noCache  bool
	gapKiB   int64
	withFile bool
}

func newGetCommand(g *globals, s streams) *cobra.Command {
	var o getOptions
	cmd := &cobra.Command{
		Use:   "get FILE KEY... [--keys-file PATH|-]",
		Short: "Print the rows whose key is one of the KEYs",
		Long: `Get prints every row of FILE whose key is one of the KEYs, verbatim and in
file order, each row once. Keys are compared byte for byte: "007" is not "7".

For a composite key, each KEY is one CSV record in the file's dialect with a
field per column (42,shipped, or '42,"a,b"'), and so is each record of the
keys file. For a key of one column, a KEY or a line of the keys file is the
key, whole and verbatim: lines are not decoded as CSV, so a quoted key stays
quoted (and matches nothing). To take the keys from a column of another CSV,
let join decode it: once OTHER.csv is indexed by COLUMN,
csvidx join --semi FILE OTHER.csv --key COLUMN prints FILE's header and the
rows of FILE whose key OTHER.csv holds, verbatim, in file order.

FILE may be the manifest of an index over several files (see build), or
--index may name one: the rows come in the order of the files, then of
their rows, and --with-file prints each row's file first.

The exit status is 0 when a row matched, 1 when none did, 2 on error.
When FILE has grown since it was indexed, get answers from the indexed
part and warns how many bytes are not indexed.`,
		Example: `  csvidx get orders.csv 8841207
  csvidx get orders.csv --header 17 42 > two-users.csv
  csvidx get orders.csv --keys-file keys.txt     # a key per line, verbatim
  csvidx join --semi orders.csv vips.csv --key user_id   # keys from a CSV
  csvidx get orders.csv --count 17 42
  csvidx get orders.csv --index by-user-status.csvidx 42,shipped
  csvidx get orders.idx 8841207 --with-file     # an index over many files`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("get needs FILE and a KEY or --keys-file (see csvidx get --help)")
			}
			return indexable(cmd, args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var given keyInput
			for _, k := range args[1:] {
				given.args = append(given.args, []byte(k))
			}
			switch o.keysFile {
			case "":
			case "-":
				given.stdin = func() ([]byte, error) { return readKeysFile("-", "--keys-file", s) }
			default:
				data, err := readKeysFile(o.keysFile, "--keys-file", s)
				if err != nil {
					return err
				}
				given.file = data
			}
			if len(given.args) == 0 && o.keysFile == "" {
				return fmt.Errorf("get needs a KEY or --keys-file (see csvidx get --help)")
			}
			return get(cmd.Context(), args[0], &given, g, &o, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.keysFile, "keys-file", "", "read more keys from `PATH` ('-': standard input), one per line, verbatim: no CSV decoding, a quoted key stays quoted (for a composite key, a CSV record each)")
	f.BoolVarP(&o.count, "count", "c", false, "print KEY<TAB>COUNT per distinct key, as given, instead of the rows")
	f.BoolVar(&o.header, "header", false, "print the header record first, so the output is a CSV file")
	f.Int64Var(&o.gapKiB, "gap-kib", 0, "for a CSV at a URL: read its rows less than `KiB` apart by one GET (default 64, 1024 for s3)")
	f.BoolVar(&o.withFile, "with-file", false, "for an index over several files: print the path of each row's file first, as a first field (with --header, named file)")
	f.BoolVar(&o.noCache, "no-cache", false, "for a CSV at a URL: keep no fetched piece of its index in the cache ($XDG_CACHE_HOME/csvidx) after the lookup")
	return cmd
}

const outputBuffer = 64 << 10 // bytes of output buffered between writes

// processExits says that the process ends when the command returns, as it
// does when main runs it, and not in tests. get then leaves its index open:
// the kernel drops the mappings at exit faster than Close can, because
// unmapping them one by one interrupts the other CPUs to flush their TLBs
// (0.15-0.2 ms of a 2.7 ms lookup on a 2-core VM).
var processExits bool

func get(ctx context.Context, csvPath string, given *keyInput, g *globals, o *getOptions, s streams) error {
	if o.gapKiB < 0 {
		return fmt.Errorf("--gap-kib %d: give 0 or more", o.gapKiB)
	}
	if applyGap != nil {
		applyGap(o.gapKiB << 10)
	}
	ix, look, closeIx, err := openLookups(ctx, csvPath, g, o.noCache)
	if err != nil {
		return err
	}
	if !processExits || o.noCache {
		defer closeIx() // and removes --no-cache's temporary cache
	}
	values, keys, err := given.keys(ix)
	if err != nil {
		return err
	}
	if n := ix.BytesBehind(); n > 0 {
		fmt.Fprintf(s.err, "csvidx: warning: %d bytes at the end of %s are not indexed; csvidx update will add them\n", n, oneLine(csvPath))
	}
	if m, ok := ix.(*manyIndex); ok && len(m.uncovered) > 0 {
		fmt.Fprintf(s.err, "csvidx: warning: %s names %s that %s does not index (%s); build it again to add them\n",
			oneLine(csvPath), plural(int64(len(m.uncovered)), "file"), oneLine(g.indexPath), oneLine(strings.Join(m.uncovered[:min(3, len(m.uncovered))], ", ")))
	}
	w := bufio.NewWriterSize(s.out, outputBuffer)
	matched := false
	if o.count {
		err = countKeys(look, values, keys, w, &matched)
	} else if o.withFile {
		err = getWithFile(look, ix, keys, o.header, w, &matched)
	} else {
		if o.header {
			h, herr := ix.Header()
			if herr != nil {
				return herr
			}
			w.Write(h)
		}
		err = look.Get(keys, func(row []byte) error {
			matched = true
			_, err := w.Write(row)
			return err
		})
	}
	if err == nil { // before the last buffer goes out: a short answer is never printed
		err = ix.Check()
	}
	if err == nil {
		err = w.Flush()
	}
	switch {
	case errors.Is(err, syscall.EPIPE):
		return nil // the reader stopped reading: it has what it wanted
	case err != nil:
		return err
	case !matched:
		return errNoMatch
	}
	return nil
}

// countKeys writes VALUE<TAB>COUNT for each distinct key, in request
// order: values[i] is keys[i] as it was given.
func countKeys(ix lookups, values, keys [][]byte, w io.Writer, matched *bool) error {
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		n, err := ix.Count(k)
		if err != nil {
			return err
		}
		*matched = *matched || n > 0
		if _, err := fmt.Fprintf(w, "%s\t%d\n", values[i], n); err != nil {
			return err
		}
	}
	return nil
}

// lookups are what get asks of an index: its rows, and their counts.
// index.Index has them; a remote index's fetch the pages they read first.
type lookups interface {
	Get(keys [][]byte, fn func(row []byte) error) error
	Count(key []byte) (int64, error)
}

// openRemote, set by the remote build, opens the remote index of a CSV at
// a URL, or the index over many files whose manifest is at the URL; nil in
// the other builds.
var openRemote func(ctx context.Context, csvPath string, g *globals, noCache bool) (opened, lookups, func() error, error)

// opened is what get asks of an open index besides its lookups: one
// file's (index.Index) or several files' (multifile.Index).
type opened interface {
	keyed
	BytesBehind() int64
	Header() ([]byte, error)
	Check() error
}

// openLookups opens the index of the CSV at csvPath for get: its remote
// index when the CSV is at a URL and --index names no local file (in the
// remote build); the index over several files of the manifest that
// --index names, or FILE is, when it has no index of its own; else the
// index as index.Open finds it.
func openLookups(ctx context.Context, csvPath string, g *globals, noCache bool) (opened, lookups, func() error, error) {
	if openRemote != nil && g.remoteIndex(csvPath) {
		return openRemote(ctx, csvPath, g, noCache)
	}
	ix, err := index.Open(csvPath, g.options())
	if err != nil { // a manifest is looked for only here: a get of a CSV pays nothing for it
		switch manifest := g.indexPath; {
		case manifest != "" && multifile.IsManifest(manifest):
			return openMany(csvPath, manifest, g)
		case manifest == "" && errors.Is(err, index.ErrNoIndex) && multifile.IsManifest(csvPath):
			return openMany(csvPath, csvPath, g)
		case manifest == "" && errors.Is(err, fs.ErrNotExist) && multifile.IsPattern(csvPath):
			return nil, nil, nil, fmt.Errorf("%s is a pattern, and an index over the files it names is read through its manifest: csvidx get MANIFEST KEY, or add --index MANIFEST", oneLine(csvPath))
		}
		return nil, nil, nil, err
	}
	return ix, ix, ix.Close, nil
}

// applyGap, set by the remote build, gives its clients the gap --gap-kib
// says (see remote.Client.Gap), in bytes, 0 for their defaults; nil in the
// other builds.
var applyGap func(gap int64)
