package index

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
	"github.com/csvidx/csvidx/source/compressed"
)

// The compressed fuzz target's inputs: CSV bytes and how to compress them.
// mode's low two bits and bit 4 pick the file's shape (compressedShapes);
// bit 2 reads candidate rows through windows of 3 bytes, shorter than any
// row (read again, doubled); bit 3 builds on two threads. frame is the plain bytes of
// a frame or piece, 1 to 512, but at least a 128th of the data.
const (
	fuzzCompressedMax = 8 << 10 // CSV bytes of an input: more are cut, so each input stays fast
	fuzzMaxKeys       = 300     // distinct keys looked up one by one; all of them at once too
	fuzzMemLimit      = 1 << 20 // the builds' memory limit: at the default, the sorter clears arenas far larger than an input needs, half of each input's time
)

// compressedShapes are the files the fuzz target compresses a CSV into:
// csvidx compress's zstd in frames of the given size and its BGZF, and the
// CSV cut in pieces of that size, each compressed alone by csvidx compress
// and the files concatenated: zstd frames with each file's seek table (a
// skippable frame) between them, BGZF members with each file's empty end
// member between them, as cat of such files writes; and plain gzip, in one
// member (written whole, or flushed at every piece: deflate blocks end
// there) or a member a piece, with an empty member after each.
var compressedShapes = []struct {
	name   string
	format string
	pieces bool
	whole  bool // gzip: one write, no flush
}{
	{"zstd frames", "zstd", false, false},
	{"BGZF", "bgzf", false, false},
	{"zstd files concatenated", "zstd", true, false},
	{"BGZF files concatenated", "bgzf", true, false},
	{"gzip, flushed", "gzip", false, false},
	{"gzip members", "gzip", true, false},
	{"gzip", "gzip", false, true},
	{"zstd frames", "zstd", false, false},
}

// FuzzCompressedSameRows compresses a CSV in frames of any size, builds
// the index of the plain file and of the compressed one, and checks that
// both answer alike: the index the same but for the compressed file's
// source section, the same header, and for every key of the CSV (and a few
// absent ones) the same rows and count, alone and all at once. A build
// that fails on one must fail on the other.
func FuzzCompressedSameRows(f *testing.F) {
	r := rand.New(rand.NewPCG(46, 46))
	for i := range 6 {
		g := makeCSV(r, 20+r.IntN(150), 1, ',', i%3 != 2, i%2 == 1)
		f.Add([]byte(g.data), uint16(1+r.IntN(300)), uint8(i), uint8(1), i%3 == 2)
	}
	f.Add([]byte("id,k\r\n1,\"a\r\nb\"\r\n2,x\r\n\r\n3,\"a\r\nb\""), uint16(3), uint8(4), uint8(1), false)
	f.Add([]byte("\xEF\xBB\xBFk\n\"\"\n\"x\"\"y\"z\n"), uint16(1), uint8(2), uint8(0), true)
	f.Add([]byte("a,b\n"), uint16(1), uint8(1), uint8(1), false)
	for i := range 3 { // plain gzip: flushed, in members, written whole
		g := makeCSV(r, 40+r.IntN(150), 1, ',', i != 2, i == 1)
		f.Add([]byte(g.data), uint16(1+r.IntN(300)), uint8(16+i+4*(i%2)+8*(i/2)), uint8(1), i == 2)
	}
	f.Fuzz(func(t *testing.T, data []byte, frame uint16, mode, keyCol uint8, noHeader bool) {
		fuzzCompressedOnce(t, data, int(frame), mode, int(keyCol%4), noHeader)
	})
}

// fuzzCompressedOnce is one run of FuzzCompressedSameRows.
func fuzzCompressedOnce(t *testing.T, data []byte, frame int, mode uint8, keyCol int, noHeader bool) {
	data = data[:min(len(data), fuzzCompressedMax)]
	if source.Compression(data) != "" {
		return // a CSV that starts with a compressed file's magic is read as one
	}
	shape := compressedShapes[int(mode&3)|int(mode>>4&1)<<2]
	frame = max(1+frame%512, len(data)/128)
	if mode&4 != 0 {
		old := rowWindowBytes
		rowWindowBytes = 3
		defer func() { rowWindowBytes = old }()
	}
	dir := t.TempDir()
	plain, comp := filepath.Join(dir, "p.csv"), filepath.Join(dir, "c.csv")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if shape.whole {
		frame = len(data) + 1
	}
	if err := os.WriteFile(comp, compressPieces(t, data, shape.format, frame, shape.pieces), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := func(p string) *BuildOptions {
		return &BuildOptions{Key: strconv.Itoa(keyCol), NoHeader: noHeader, IndexPath: p + ".csvidx",
			Resources: Resources{Threads: 1 + int(mode>>3&1), MemLimit: fuzzMemLimit}}
	}
	ctx := context.Background()
	_, perr := Build(ctx, plain, opts(plain))
	_, cerr := Build(ctx, comp, opts(comp))
	if (perr == nil) != (cerr == nil) {
		t.Fatalf("%s: the build of the plain file: %v; of the compressed one: %v", shape.name, perr, cerr)
	}
	if perr != nil {
		return
	}
	want, err := os.ReadFile(plain + ".csvidx")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(comp + ".csvidx")
	if err != nil {
		t.Fatal(err)
	}
	sameButSource(t, got, want, comp)
	ixp, err := Open(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ixp.Close()
	ixc, err := Open(comp, nil)
	if err != nil {
		t.Fatalf("%s: Open of the compressed file: %v", shape.name, err)
	}
	defer ixc.Close()
	hp, errp := ixp.Header()
	hc, errc := ixc.Header()
	if !bytes.Equal(hp, hc) || errp != nil || errc != nil {
		t.Fatalf("%s: Header: plain %q, %v; compressed %q, %v", shape.name, hp, errp, hc, errc)
	}
	keys := csvKeys(data, keyCol)
	for _, k := range keys {
		rp, errp := getRows(ixp, k)
		rc, errc := getRows(ixc, k)
		if rp != rc || errp != nil || errc != nil {
			t.Fatalf("%s, frames of %d: key %q: plain %q, %v; compressed %q, %v", shape.name, frame, k, rp, errp, rc, errc)
		}
		np, errp := ixp.Count(k)
		nc, errc := ixc.Count(k)
		if np != nc || errp != nil || errc != nil {
			t.Fatalf("%s: Count(%q): plain %d, %v; compressed %d, %v", shape.name, k, np, errp, nc, errc)
		}
	}
	rp, errp := getRows(ixp, keys...)
	rc, errc := getRows(ixc, keys...)
	if rp != rc || errp != nil || errc != nil {
		t.Fatalf("%s: the rows of all %d keys at once differ (%v, %v)", shape.name, len(keys), errp, errc)
	}
}

// compressPieces returns data compressed by compressed.Compress in format,
// in frames of frame bytes (zstd), or cut in pieces of frame bytes, each
// compressed alone, concatenated.
func compressPieces(t *testing.T, data []byte, format string, frame int, pieces bool) []byte {
	t.Helper()
	if format == "gzip" {
		return gzipPieces(t, data, frame, pieces)
	}
	o := compressed.CompressOptions{Format: format, Threads: 2}
	if format == "zstd" {
		o.FrameBytes = frame
	}
	var out bytes.Buffer
	for rest := data; ; {
		piece := rest
		if pieces {
			piece = rest[:min(len(rest), frame)]
		}
		if _, err := compressed.Compress(context.Background(), &out, bytes.NewReader(piece), o); err != nil {
			t.Fatal(err)
		}
		if rest = rest[len(piece):]; len(rest) == 0 {
			return out.Bytes()
		}
	}
}

// gzipPieces returns data as plain gzip (klauspost's writer, another
// deflate than gzip's): one member, flushed every frame bytes, or a member
// for each piece of frame bytes, with an empty member after each.
func gzipPieces(t *testing.T, data []byte, frame int, pieces bool) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	for rest := data; len(rest) > 0; {
		piece := rest[:min(len(rest), frame)]
		rest = rest[len(piece):]
		if _, err := zw.Write(piece); err != nil {
			t.Fatal(err)
		}
		if !pieces {
			if err := zw.Flush(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		empty := gzip.NewWriter(&out)
		if err := empty.Close(); err != nil {
			t.Fatal(err)
		}
		zw.Reset(&out)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// csvKeys returns the distinct keys of the records of data with the key in
// column keyCol (a header's field too), up to fuzzMaxKeys, and two keys no
// record has.
func csvKeys(data []byte, keyCol int) [][]byte {
	keys := [][]byte{[]byte("absent key"), {}}
	seen := map[string]bool{"absent key": true, "": true}
	s, err := scan.New(data, ',', keyCol)
	if err != nil {
		return keys
	}
	for s.Next() && len(keys) < fuzzMaxKeys {
		if k, ok := s.Key(); ok && !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, bytes.Clone(k))
		}
	}
	return keys
}

// getRows returns the rows Get prints for keys, and its error.
func getRows(ix *Index, keys ...[]byte) (string, error) {
	var b bytes.Buffer
	err := ix.Get(keys, func(row []byte) error { b.Write(row); return nil })
	return b.String(), err
}
