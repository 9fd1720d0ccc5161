package multifile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/source"
)

// Expand returns the files args name, in order: each arg is a file's path
// or URL, or, when it holds * or ?, a glob pattern (filepath.Match's
// syntax) that names its matches, sorted. A pattern that matches nothing, and a file named
// twice, are errors.
func Expand(args []string) ([]string, error) {
	var names []string
	seen := map[string]string{}
	for _, a := range args {
		matches := []string{a}
		if IsPattern(a) {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("the pattern %q: %w", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("no file matches %q", a)
			}
			matches = m
		}
		for _, name := range matches {
			key := name
			if !isURL(name) {
				if abs, err := filepath.Abs(name); err == nil {
					key = abs
				}
			}
			if first, ok := seen[key]; ok {
				return nil, fmt.Errorf("%s is named twice (as %s and as %s): each file is indexed once", name, first, name)
			}
			seen[key] = name
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no file to index")
	}
	return names, nil
}

// IsPattern reports whether a names files by a glob pattern: it holds * or
// ? (a name with brackets alone is taken as it is), is no URL, and no file
// has that very name (which would be itself).
func IsPattern(a string) bool {
	if !strings.ContainsAny(a, "*?") || isURL(a) {
		return false
	}
	_, err := os.Stat(a)
	return err != nil
}

// isURL reports whether name is a URL (see source.IsURL).
func isURL(name string) bool { return source.IsURL(name) }

// describe opens each of the files names and returns the parts they make:
// sizes, the hashes of their ends, and where each but the first non-empty
// one starts after its header, which must be the first's, byte for byte
// (a byte order mark aside); and the first's header. An empty file is an
// empty part.
func describe(ctx context.Context, names []string, opts *index.BuildOptions) ([]Part, []byte, error) {
	parts := make([]Part, len(names))
	var header []byte
	first := -1
	for i, name := range names {
		p, h, err := describeOne(ctx, name, opts, first < 0)
		if err != nil {
			return nil, nil, err
		}
		parts[i] = p
		switch {
		case p.Size == 0:
		case first < 0:
			first, header = i, h
		case !opts.NoHeader && !bytes.Equal(withoutBOM(h), withoutBOM(header)):
			return nil, nil, fmt.Errorf("%s: its header differs from that of %s, the first file: %s, not %s; every file must have the same header", name, names[first], shown(h), shown(header))
		}
	}
	if first < 0 {
		return nil, nil, fmt.Errorf("every file is empty: there is nothing to index")
	}
	return parts, header, nil
}

// describeOne describes the file at name as a part: its header left out
// unless first says it is the first part with bytes. It returns the
// header's bytes too.
func describeOne(ctx context.Context, name string, opts *index.BuildOptions, first bool) (Part, []byte, error) {
	src, err := source.Open(name, mapping.Random)
	if err != nil {
		return Part{}, nil, err
	}
	defer src.Close()
	p := Part{Size: src.Size()}
	if p.Size == 0 {
		return p, nil, nil
	}
	head, tail, err := ends(ctx, src)
	if err != nil {
		return Part{}, nil, err
	}
	p.Head, p.Tail = hashHex(head), hashHex(tail)
	var header []byte
	if !opts.NoHeader {
		o := *opts
		o.Key = "" // the header's end only
		start, _, err := index.DataStart(src, &o)
		if err != nil {
			return Part{}, nil, fmt.Errorf("%s: %w", name, err)
		}
		header = make([]byte, start)
		if _, err := src.ReadAt(ctx, header, 0); err != nil {
			return Part{}, nil, err
		}
		if !first {
			p.Skip = start
		}
	}
	p.Newline = p.Size > p.Skip && tail[len(tail)-1] != '\n'
	return p, header, nil
}

// ends returns the first and the last min(format.EndHashLen, size) bytes
// of src.
func ends(ctx context.Context, src source.Source) (head, tail []byte, err error) {
	k := min(format.EndHashLen, src.Size())
	head, tail = make([]byte, k), make([]byte, k)
	if _, err := src.ReadAt(ctx, head, 0); err != nil {
		return nil, nil, err
	}
	if _, err := src.ReadAt(ctx, tail, src.Size()-k); err != nil {
		return nil, nil, err
	}
	return head, tail, nil
}

// hashHex returns the XXH3-64 hash of b in 16 hex digits.
func hashHex(b []byte) string { return fmt.Sprintf("%016x", xxh3.Hash(b)) }

// withoutBOM returns b without a leading UTF-8 byte order mark.
func withoutBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) }

// shown quotes a header for an error, cut short when long.
func shown(h []byte) string {
	const most = 200
	if len(h) > most {
		return fmt.Sprintf("%q...", h[:most])
	}
	return fmt.Sprintf("%q", h)
}

// check returns an opener of the parts l lists, of the manifest at path,
// for a source.Concat, that checks each part when it opens it: its size,
// and with hashes, the hashes of its ends. A part that differs is
// index.ErrStale.
func check(l partList, path string, hashes bool) func(i int) (source.Source, error) {
	return checkWith(l, path, hashes, nil)
}

// checkWith is check, the parts at URLs opened by openURL when it is not
// nil (one that reads their ends in its first round trip).
func checkWith(l partList, path string, hashes bool, openURL func(string) (source.Source, error)) func(i int) (source.Source, error) {
	return func(i int) (source.Source, error) {
		p, _, err := l.part(i)
		if err != nil {
			return nil, err
		}
		name := resolve(dirOf(path), p.Path)
		var src source.Source
		if openURL != nil && isURL(name) {
			src, err = openURL(name)
		} else {
			src, err = source.Open(name, mapping.Random)
		}
		if err != nil {
			return nil, err
		}
		why := ""
		if src.Size() != p.Size {
			why = fmt.Sprintf("it holds %d bytes, %d when it was indexed", src.Size(), p.Size)
		} else if hashes && p.Size > 0 {
			head, tail, err := ends(context.Background(), src)
			if err != nil {
				src.Close()
				return nil, err
			}
			if hashHex(head) != p.Head || hashHex(tail) != p.Tail {
				why = fmt.Sprintf("its first or last %d bytes changed", len(head))
			}
		}
		if why != "" {
			src.Close()
			return nil, fmt.Errorf("%s is %w: %s changed since the build (%s); run csvidx build again", path, index.ErrStale, name, why)
		}
		return src, nil
	}
}
