//go:build codecs || remote

package main

// The codecs build (go build -tags codecs), and the remote build (-tags
// remote), which reads whatever the others read: source.Open reads BGZF
// and zstd files through the backends that package compressed
// registers at its initialisation, which every process of these builds
// pays for (see compressed.go). The default build runs the codecs build,
// installed as csvidx-codecs, for a file in those formats.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/compressed" // its init registers the gzip (BGZF or not) and zstd backends
)

// codecsBuild says this build reads the formats of package compressed.
const codecsBuild = true

// beforeStdin does nothing: this build reads what the codecs build reads.
func beforeStdin(string) error { return nil }

// compressFile writes o.in compressed to o.out (see the compress command),
// through a temporary file renamed into place. A compressed o.in is read
// through its backend, front to back (see source.OpenWalking): its plain
// bytes are recompressed.
func compressFile(ctx context.Context, o compressOptions) (compressResult, error) {
	in, err := source.OpenWalking(o.in, mapping.Sequential, source.WalkOptions{})
	if err != nil {
		return compressResult{}, err
	}
	defer in.Close()
	st, err := source.Stat(o.in) // a remote CSV's too, without a request
	if err != nil {
		return compressResult{}, err
	}
	if ost, err := os.Stat(o.out); err == nil {
		switch {
		case os.SameFile(st, ost):
			return compressResult{}, fmt.Errorf("-o %s is %s itself", o.out, o.in)
		case !o.force:
			return compressResult{}, fmt.Errorf("%s exists: give --force to replace it, or another -o", o.out)
		case !ost.Mode().IsRegular():
			return compressResult{}, fmt.Errorf("%s is %s, not a file to replace", o.out, mapping.Kind(ost.Mode()))
		}
	}
	out, err := atomicfile.Create(o.out, false, st.Mode().Perm())
	if err != nil {
		return compressResult{}, err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	format, frame := strings.ToLower(o.format), 0
	if format == "zstd" {
		frame = o.frameKiB << 10
	}
	plain := io.NewSectionReader(source.ReaderAt(ctx, in), 0, math.MaxInt64) // to the end, whether its size is known yet or not
	cs, err := compressed.Compress(ctx, w, bufio.NewReaderSize(plain, 1<<20), compressed.CompressOptions{
		Format: format, FrameBytes: frame, Level: o.level, Threads: o.threads,
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = out.Commit()
	}
	if err != nil {
		out.Abort()
		return compressResult{}, err
	}
	_, plainIn := in.(source.Mapped)
	return compressResult{frames: cs.Frames, plain: cs.PlainBytes, bytes: cs.Bytes, recompressed: !plainIn}, nil
}
