package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/source"
	"github.com/spf13/cobra"
)

// compressOptions are the compress command's file names and flags.
type compressOptions struct {
	in, out  string
	format   string
	frameKiB int
	level    int
	threads  int
	force    bool
	quiet    bool
	keys     []string // --key: indexes to build of the output
	noHeader bool
	delim    string
}

// compressResult is what compress wrote.
type compressResult struct {
	frames       int
	plain, bytes int64
	recompressed bool // the input was compressed: its plain bytes were read through its backend
}

func newCompressCommand(g *globals, s streams) *cobra.Command {
	var o compressOptions
	cmd := &cobra.Command{
		Use:   "compress FILE",
		Short: "Write FILE compressed so that csvidx reads it at random",
		Long: `Compress writes FILE compressed in small frames, each compressed alone on
one of several cores, so that csvidx reads the file at random: a lookup
decodes only the frames that hold its rows. zstd (the default) writes
frames of --frame-kib of FILE's bytes and the seek table of zstd's seekable
format; bgzf writes bgzip's 64 KiB members. zstd -d and gzip -d read the
output whole, as any file of the format.

The output is FILE.zst or FILE.gz unless -o names it; an existing file is
an error unless --force. It is written to a temporary file renamed into
place, so a reader never sees half of it. FILE is never changed. It is a
command of csvidx's codecs build, which the default build runs.

FILE may be compressed itself (gzip, BGZF or zstd): its plain bytes are
compressed again, so that a file csvidx reads only from front to back
(zstd's one frame for a whole file) or through a walk of it (plain gzip)
becomes one it reads at random. The output is then FILE without its .gz or
.zst, with the new format's suffix. FILE may be at a URL (read by the
remote build): the output is then written here, named by the URL's last
part unless -o names it.

With --key, compress then indexes the output by each --key, as build does,
reading the plain bytes from FILE instead of decoding what it wrote (a
compressed FILE's output is decoded); should FILE change meanwhile, the
output and its indexes are removed, and it is an error.`,
		Example: `  csvidx compress orders.csv
  csvidx compress orders.csv --format bgzf -o orders.csv.gz
  csvidx compress export.csv.gz
  csvidx compress orders.csv --key user_id
  csvidx build orders.csv.zst --key user_id`,
		Args: exactFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.in = args[0]
			if strings.EqualFold(o.format, "bgzf") && cmd.Flags().Changed("frame-kib") {
				return fmt.Errorf("--frame-kib is zstd's: BGZF members hold 65280 bytes each")
			}
			suffix, ok := map[string]string{"zstd": ".zst", "bgzf": ".gz"}[strings.ToLower(o.format)]
			if !ok {
				return fmt.Errorf("--format %q: give zstd or bgzf", o.format)
			}
			if o.out == "" {
				o.out = defaultCompressed(localName(o.in), suffix)
				if o.out == o.in {
					return fmt.Errorf("the output would be %s itself: give -o", o.in)
				}
			}
			delim, err := delimiterOption(cmd, o.delim, 0)
			if err != nil {
				return err
			}
			before, err := source.Stat(o.in)
			if err != nil {
				return err
			}
			r, err := compressFile(cmd.Context(), o)
			if err != nil {
				return err
			}
			ratio := 0.0
			if r.bytes > 0 {
				ratio = float64(r.plain) / float64(r.bytes)
			}
			report := reporter(s.err, o.quiet)
			fmt.Fprintf(report, "csvidx: wrote %s: %d bytes of %s in %d frames, %d bytes (%.2fx smaller)\n", o.out, r.plain, o.in, r.frames, r.bytes, ratio)
			if len(o.keys) == 0 {
				return nil
			}
			start := time.Now()
			bo := &index.BuildOptions{NoHeader: o.noHeader, Delimiter: delim, IndexPath: g.indexPath, IndexDir: g.indexDir, PlainFrom: o.in}
			if r.recompressed {
				bo.PlainFrom = ""
			}
			infos, err := index.BuildIndexes(cmd.Context(), o.out, o.keys, bo)
			if err != nil {
				return err
			}
			if after, err := source.Stat(o.in); err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
				index.DropAll(o.out, &index.DropOptions{IndexDir: g.indexDir})
				os.Remove(o.out)
				return fmt.Errorf("%s changed while csvidx compress read it: %s and its index were removed; run it again", o.in, o.out)
			}
			return reportBuilt(s, report, infos, start, false, false)
		},
	}
	cmd.Flags().StringVarP(&o.out, "output", "o", "", "the compressed file `PATH` (default FILE.zst or FILE.gz)")
	cmd.Flags().StringVar(&o.format, "format", "zstd", "zstd (seekable, in frames of --frame-kib) or bgzf (bgzip's)")
	cmd.Flags().IntVar(&o.frameKiB, "frame-kib", 64, "zstd: KiB of FILE per frame (a lookup decodes a frame per row it reads)")
	cmd.Flags().IntVar(&o.level, "level", 0, "compression level (zstd 1-22, default 1; bgzf 1-9, default 6)")
	cmd.Flags().IntVar(&o.threads, "threads", 0, "frames compressed at once (default: all cores)")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "replace an existing output file")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, quietUsage)
	cmd.Flags().StringArrayVarP(&o.keys, "key", "k", nil, "index the output by `COLUMNS` too, as build --key does (repeat it for several indexes)")
	cmd.Flags().BoolVarP(&o.noHeader, "no-header", "n", false, "with --key: the first record is data, not a header")
	cmd.Flags().StringVarP(&o.delim, "delimiter", "d", "", "with --key: field delimiter, as build's (default: by FILE's name)")
	return cmd
}

// defaultCompressed returns the name of the compressed file of the file
// in, with suffix, the format's: in's name without a compressed file's
// suffix, with suffix.
func defaultCompressed(in, suffix string) string {
	for _, old := range []string{".gz", ".bgz", ".gzip", ".zst", ".zstd"} {
		if len(in) > len(old) && strings.EqualFold(in[len(in)-len(old):], old) {
			return in[:len(in)-len(old)] + suffix
		}
	}
	return in + suffix
}

// localName returns the name in the working directory of a file that in
// names: in itself, or for a CSV at a URL, the last part of its path.
func localName(in string) string {
	if !source.IsURL(in) {
		return in
	}
	if i := strings.LastIndexByte(in, '/'); i >= 0 && i+1 < len(in) {
		return in[i+1:]
	}
	return "remote.csv"
}
